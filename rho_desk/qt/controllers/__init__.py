"""What the app does in answer to the user: the action registry, the commands behind the menus,
and the continued conversation."""
