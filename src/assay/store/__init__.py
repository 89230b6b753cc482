"""Persistence: SQLAlchemy 2 (SQLite by default, PostgreSQL for teams), Alembic migrations."""
