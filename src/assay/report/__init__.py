"""Turning stored results into figures people read."""
