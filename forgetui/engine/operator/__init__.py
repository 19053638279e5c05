"""The operator's side: verbs that change a task between steps, replies to escalations, the inbox,
the read models the views show."""
