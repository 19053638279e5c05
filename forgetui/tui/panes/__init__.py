"""The workbench panes: task frame, compiled context, working memory, action log, verification."""
