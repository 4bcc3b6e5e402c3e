"""cobe_inspect."""
