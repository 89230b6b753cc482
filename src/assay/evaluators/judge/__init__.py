"""LLM-as-judge evaluators: templates, rendering, and strict parsing of the judge's reply."""
