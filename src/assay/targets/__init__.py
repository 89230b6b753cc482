"""Targets (被测对象): what answers an item — a model, an HTTP agent, a Python function, a
command, recorded answers."""
