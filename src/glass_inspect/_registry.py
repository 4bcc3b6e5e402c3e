"""inspect-ai entry point: importing registers this package's tasks, scorers and sandboxes."""
