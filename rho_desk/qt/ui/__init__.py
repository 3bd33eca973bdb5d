"""The base layer every other part of the app builds on: text and size wording, the theme and the
bundled icons, Markdown shown as text, windows sized for their screen, the item-model roles and
table shapes, and the small widgets several features share. It imports nothing else of the app."""
