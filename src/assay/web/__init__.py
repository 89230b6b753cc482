"""`assay view`: the web UI (server-rendered pages) and its JSON API."""
