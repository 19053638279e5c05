"""The Textual workbench. It renders what `forgetui.engine.api` reports and sends it the
operator's commands; it holds no engine logic. `panes/` are the five panes, `modals/` the
screens pushed over the workbench, the rest wires them together (app, workbench screen, the
engine session, the views it builds off the UI thread, settings, themes, the command table)."""
