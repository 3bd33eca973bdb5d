"""Text for a person: sizes (``sizes``), untrusted text with its controls made visible
(``visible``), and the command line's JSON objects (``jsonable``)."""
