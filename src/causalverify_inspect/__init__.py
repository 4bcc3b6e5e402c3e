"""causalverify_inspect."""
