"""Models: the registry (config), the one OpenAI-compatible client, the response cache."""
