"""Ground truth at answer time (issue 5): providers that fetch a quote and say where it came
from, routing from an item's ticker fields to a provider's exact instrument, and capture
alongside a target's answer."""
