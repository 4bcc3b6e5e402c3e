"""glass_inspect."""
