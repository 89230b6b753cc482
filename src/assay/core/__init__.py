"""Domain types and pure functions; nothing here does I/O."""
