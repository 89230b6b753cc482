"""Typer commands: thin; they parse, call the library and print."""
