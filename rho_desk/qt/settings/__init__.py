"""The Settings dialog: provider profiles and their keys, compaction defaults, the data folder,
the theme, the trusted folders."""
