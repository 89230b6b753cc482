"""Assay (试金石): traceable, executable evaluation of LLMs and agents."""

__version__ = "0.1.0"
