"""Evaluators: code that turns an item and an answer into a Score."""
