"""One exception hierarchy, so the CLI can turn any user mistake into one clear line."""

from __future__ import annotations


class AssayError(Exception):
    """Base of every error Assay raises on purpose; the CLI prints it without a traceback."""

    exit_code = 1


class ConfigError(AssayError):
    """The user asked for something that cannot be done as configured (bad flag, unknown name)."""

    exit_code = 2


class DataError(AssayError):
    """Input data is unreadable or inconsistent; the message names the file and the line or row."""

    exit_code = 3

    def __init__(self, message: str, *, path: str | None = None, line: int | None = None,
                 field: str | None = None) -> None:
        self.path = path
        self.line = line
        self.field = field
        where = ""
        if path is not None:
            where = str(path)
            if line is not None:
                where += f":{line}"
            where += ": "
        if field is not None:
            message = f"field '{field}': {message}"
        super().__init__(where + message)


class StoreError(AssayError):
    """The database cannot be opened or migrated."""

    exit_code = 4


class RunBusyError(AssayError):
    """Another process is working on this run (it holds the run's lease): nothing was done."""

    exit_code = 5
