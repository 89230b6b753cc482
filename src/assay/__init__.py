"""Assay (试金石): traceable, executable evaluation of LLMs and agents."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"
__all__ = ["Run", "__version__", "aevaluate", "evaluate"]

if TYPE_CHECKING:
    from assay.api import Run, aevaluate, evaluate


def __getattr__(name: str) -> Any:
    # Lazy: `import assay` (and `assay --help`) must not pay for the runner's imports.
    if name in ("evaluate", "aevaluate", "Run"):
        from assay import api

        return getattr(api, name)
    raise AttributeError(f"module 'assay' has no attribute {name!r}")
