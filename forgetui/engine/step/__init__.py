"""One step of the loop and running steps back to back: the executor's stages, the control actions,
the operator gates, verification, reports."""
