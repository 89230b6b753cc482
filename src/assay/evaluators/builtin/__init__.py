"""Built-in code evaluators (exact, contains, regex, numeric, JSON, length, similarity) and
custom checks from a Python file: one module per family, registered in `entries`."""
