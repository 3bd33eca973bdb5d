"""The app's long-lived services: the engine bridge, the open document, the library, the team
library, settings, notifications, and the typed context that holds them."""
