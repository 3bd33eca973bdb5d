"""Continuing a conversation in the window: the controller that runs a turn through the bridge,
the composer panel and its dock, the approval and shell cards, and the workspace-trust question."""
