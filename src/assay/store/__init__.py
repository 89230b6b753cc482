"""Persistence: SQLAlchemy 2 (SQLite by default, PostgreSQL for teams), Alembic migrations.

The only package that writes SQL (an import-linter contract in pyproject.toml): everything else
holds an `assay.store.db.Engine` and calls the functions here. `repo` writes runs and reads them
back whole; `results`, `answers`, `runs`, `reviews` and `datasets` are the bounded reads that
reports and the UI make; `cache` is the response cache's table."""
