"""Stored text made safe to print: rich's markup escaped, control characters shown as escapes.

An answer, a question or a span name is the agent's or the dataset's text: printed raw, an
ESC sequence in it clears the screen, sets the window title or writes the clipboard (OSC 52).
Every command that prints such text through rich goes through `escape` here, so it shows
`\\x1b]0;…` instead of acting on it; the store keeps the text as it came."""

from __future__ import annotations

from rich.markup import escape as markup_escape

from assay.core.text import printable


def escape(text: str) -> str:
    return markup_escape(printable(text))
