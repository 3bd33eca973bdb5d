"""What the agent changed: the files each turn touched, their patches, restore with undo, and the
library-wide touched-paths index."""
