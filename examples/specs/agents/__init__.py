"""Example agents for the example specs."""
