"""What every built-in check shares: where the expected answer comes from (`args.expected`, else
the item's `reference_output`, Coze Loop's name for it), the text normalisations the string
checks offer, and a version that is the hash of the check's own source.

The checks are code evaluators: synchronous, deterministic, no ground truth — so the pipeline
gives them its lean path, and each one does little more than a string operation per item."""

from __future__ import annotations

import hashlib
import json
import re
import sys
import unicodedata
from dataclasses import dataclass
from functools import cache
from importlib import metadata
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path
from typing import Any

from assay.core.errors import ConfigError
from assay.core.registry import Arg
from assay.core.types import Answer, Item, Score, ScoreStatus

from ..base import CodeEvaluator

REFERENCE = "reference_output"

EXPECTED = Arg("expected", False, f"the expected answer (default: the item's '{REFERENCE}'; "
               f"map another column with --field {REFERENCE}=COLUMN)")
LABEL = Arg("label", False, "the name its scores are stored under (default: the evaluator's "
            "name), to use one check twice in a run")
NORMALISE = (
    Arg("ignore_case", False, "compare case-insensitively (default false)"),
    Arg("ignore_whitespace", False, "drop every blank, tab and line break (default false)"),
    Arg("ignore_punctuation", False, "drop punctuation, Chinese punctuation included (default "
        "false)"),
    Arg("fullwidth", False, "fold full-width letters, digits and signs to their ASCII forms "
        "(Unicode NFKC; default false)"),
    Arg("strip", False, "ignore blanks at both ends (default true)"),
)
_BLANKS = re.compile(r"\s+")


def _source(file: str) -> Path:
    """A module's source: for one compiled (the rubric's number reader, in the compiled wheel),
    the .py it was built from, so the version is the same compiled or not and follows its edits."""
    path = Path(file)
    if path.suffix != ".py" and path.name.endswith(tuple(EXTENSION_SUFFIXES)):
        source = path.with_name(path.name.split(".")[0] + ".py")
        if source.is_file():
            return source
    return path


@cache
def source_version(module: str, *also: str) -> str:
    """A hash of the module's source, of the shared parts here and of the modules it reads
    with (`also`: the rubric's number reader, a library's version): a stored score names the
    exact code that produced it, and replay says when that changed."""
    digest = hashlib.sha256()
    for name in (module, __name__):
        digest.update(_source(sys.modules[name].__file__ or "").read_bytes())
    for name in also:
        found = sys.modules.get(name)
        file = getattr(found, "__file__", None)
        if found is not None and file and "site-packages" not in file:
            digest.update(_source(file).read_bytes())
        else:  # a library: its installed version stands for its code
            try:
                digest.update(f"{name}=={metadata.version(name)}".encode())
            except metadata.PackageNotFoundError:
                digest.update(name.encode())
    return digest.hexdigest()[:12]


def flag(name: str, value: Any, where: str) -> bool:
    if not isinstance(value, bool):
        raise ConfigError(f"{where}: '{name}' must be true or false, not {value!r}")
    return value


@dataclass(frozen=True, slots=True)
class Normaliser:
    """The optional folds applied to both sides before a string comparison."""

    ignore_case: bool = False
    ignore_whitespace: bool = False
    ignore_punctuation: bool = False
    fullwidth: bool = False
    strip: bool = True

    @classmethod
    def of(cls, where: str, ignore_case: bool = False, ignore_whitespace: bool = False,
           ignore_punctuation: bool = False, fullwidth: bool = False,
           strip: bool = True) -> Normaliser:
        return cls(flag("ignore_case", ignore_case, where),
                   flag("ignore_whitespace", ignore_whitespace, where),
                   flag("ignore_punctuation", ignore_punctuation, where),
                   flag("fullwidth", fullwidth, where), flag("strip", strip, where))

    def __call__(self, text: str) -> str:
        if self.fullwidth:  # before the others: "ＡＢＣ" must fold to "abc" too
            text = unicodedata.normalize("NFKC", text)
        if self.ignore_case:
            text = text.casefold()
        if self.ignore_punctuation:
            text = "".join(c for c in text if not unicodedata.category(c).startswith("P"))
        if self.ignore_whitespace:
            text = _BLANKS.sub("", text)
        elif self.strip:
            text = text.strip()
        if self.fullwidth and (self.ignore_case or self.ignore_punctuation
                               or self.ignore_whitespace) and not text.isascii():
            # a dropped mark or blank can leave a pair that composes ("e.\u0301" → "é"):
            # normalise once more, so folding the result again changes nothing
            text = unicodedata.normalize("NFKC", text)
            if self.ignore_case:
                text = text.casefold()
        return text

    def applied(self) -> list[str]:
        """The folds in use, for the evidence."""
        return [n for n in ("ignore_case", "ignore_whitespace", "ignore_punctuation",
                            "fullwidth") if getattr(self, n)]


def as_text(value: Any) -> str:
    """A field's value as the text a check compares: strings as they are, numbers as written,
    anything else (a list, a mapping from a JSON column) as compact JSON."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value) if isinstance(value, float) else str(value)
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def excerpt(text: str, limit: int = 200) -> str:
    return text if len(text) <= limit else text[:limit] + "…"


class BuiltinCheck(CodeEvaluator):
    """A check named by its registry entry (or its `label`) whose expected answer is
    `expected` or the item's `reference_output`."""

    family = ""  # the registry name
    module = ""  # whose source is the version
    reads_with: tuple[str, ...] = ()  # modules whose code decides too (part of the version)
    needs_expected = True

    def __init__(self, *, expected: Any = None, label: str | None = None) -> None:
        if label is not None and (not isinstance(label, str) or not label.strip()):
            raise ConfigError(f"evaluator '{self.family}': 'label' must be a non-empty name")
        self.name = label or self.family
        self.expected = expected
        self.requires = (REFERENCE,) if self.needs_expected and expected is None else ()

    @property
    def where(self) -> str:
        return f"evaluator '{self.name}'"

    @property
    def version(self) -> str:
        return source_version(self.module or type(self).__module__, *self.reads_with)

    def expected_of(self, item: Item) -> Any:
        return self.expected if self.expected is not None else item.fields.get(REFERENCE)

    def score(self, passed: bool, reason: str, evidence: dict[str, Any]) -> Score:
        return Score(1.0 if passed else 0.0, ScoreStatus.SCORED, reason, self.name,
                     self.version, evidence=evidence)

    def value(self, value: float, reason: str, evidence: dict[str, Any]) -> Score:
        return Score(value, ScoreStatus.SCORED, reason, self.name, self.version,
                     evidence=evidence)

    def fail(self, reason: str, evidence: dict[str, Any] | None = None) -> Score:
        return Score.error(reason, self.name, self.version, evidence=evidence)


def answer_text(answer: Answer) -> str:
    return answer.text or ""
