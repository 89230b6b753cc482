"""`python`: a check of one's own, a function in a Python file —
`evaluators: [{python: checks.py:price_ok, args: {tolerance: 0.01}}]` or
`-e python:checks.py:price_ok` — called as `price_ok(item: dict, answer: str, **args)`, sync or
async, returning a bool, a number or a `Score`. A sync function runs in a daemon thread of its own
(core/calls.py), as a Python target does, so the run's `timeout_s` can end a check that hangs.

Its version is the hash of the file's source, recorded with every score and in the run's
manifest, so `assay replay` (which rebuilds it from the build record: path, function, args)
says when the code changed. An exception inside the function — `sys.exit()` too — is that
item's `error` status with the message; a mistake in wiring it up (no file, no function, a
syntax error, a return of the wrong type) is a one-line ConfigError naming the file and the function."""

from __future__ import annotations

import hashlib
import importlib.util
import inspect
import math
import sys
import traceback
from pathlib import Path
from typing import Any

from assay.core.calls import FAILURES, UserExit, failure_text, in_daemon_thread, in_user_loop
from assay.core.errors import ConfigError
from assay.core.text import safe_text, safe_value
from assay.core.types import Answer, Item, Score, ScoreStatus, TruthSnapshot

from ..base import CodeEvaluator

PREFIX = "python:"


def split_ref(ref: str) -> tuple[str, str]:
    """`checks.py:price_ok` → ("checks.py", "price_ok"); the last colon splits, so a path may
    hold one (C:/…)."""
    path, sep, function = ref.rpartition(":")
    if not sep or not path or not function.isidentifier():
        raise ConfigError(f"python evaluator '{ref}': write FILE.py:FUNCTION "
                          "(e.g. checks.py:price_ok)")
    return path, function


def _load(path: Path, function: str) -> tuple[Any, str]:
    """The function and the file's source hash."""
    where = f"python evaluator {path}:{function}"
    try:
        source = path.read_bytes()
    except FileNotFoundError:
        raise ConfigError(f"{where}: no such file {path}") from None
    except OSError as exc:
        raise ConfigError(f"{where}: cannot read {path}: {exc.strerror or exc}") from None
    digest = hashlib.sha256(source).hexdigest()[:12]
    try:
        code = compile(source, str(path), "exec")
    except SyntaxError as exc:
        raise ConfigError(f"{path}:{exc.lineno}: syntax error in {where}: {exc.msg}") from None
    # A module of its own per file and version, so two files named checks.py never meet and
    # an edited file is loaded afresh (replay compares the versions).
    name = f"assay_user_evaluator_{hashlib.sha256(str(path).encode()).hexdigest()[:8]}_{digest}"
    module = sys.modules.get(name)
    if module is None:
        spec = importlib.util.spec_from_loader(name, loader=None, origin=str(path))
        assert spec is not None
        module = importlib.util.module_from_spec(spec)
        module.__file__ = str(path)
        folder = str(path.parent)
        added = folder not in sys.path
        if added:  # its own helpers beside it import as they would when run there
            sys.path.insert(0, folder)
        try:
            exec(code, module.__dict__)
        except FAILURES as exc:  # sys.exit() at import too: exit 0 and nothing run before
            what = failure_text(exc) if isinstance(exc, SystemExit) else \
                f"{type(exc).__name__}: {exc}"
            raise ConfigError(f"{where}: importing the file failed: {what}"
                              f"{_line_in(exc, path)}") from None
        finally:
            if added:
                sys.path.remove(folder)
        sys.modules[name] = module
    found = module.__dict__.get(function)
    if found is None:
        defined = sorted(n for n, v in module.__dict__.items()
                         if inspect.isfunction(v) and not n.startswith("_")
                         and v.__module__ == name)
        raise ConfigError(f"{where}: {path} defines no '{function}'"
                          + (f" (it defines: {', '.join(defined)})" if defined else ""))
    if not callable(found):
        raise ConfigError(f"{where}: '{function}' is a {type(found).__name__}, not a function")
    return found, digest


def _line_in(exc: BaseException, path: Path) -> str:
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == str(path)]
    return f" (line {frames[-1].lineno})" if frames else ""


class PythonEvaluator(CodeEvaluator):
    """A function from a file: `python:FILE.py:FUNCTION`."""

    def __init__(self, *, path: str, function: str, args: dict[str, Any] | None = None,
                 label: str | None = None) -> None:
        self.path = Path(path)
        self.function = function
        self.where = f"python evaluator {self.path}:{function}"
        if args is not None and not isinstance(args, dict):
            raise ConfigError(f"{self.where}: 'args' must be a mapping")
        self.args = dict(args or {})
        self.fn, self._version = _load(self.path, function)
        self.name = label or function
        self.is_async = inspect.iscoroutinefunction(self.fn)
        try:  # the args must fit the signature: said at load, not as 1,000 item errors
            inspect.signature(self.fn).bind({}, "", **self.args)
        except TypeError as exc:
            raise ConfigError(f"{self.where}: cannot be called as {function}(item, answer"
                              f"{''.join(f', {k}=…' for k in self.args)}): {exc}") from None
        except ValueError:  # no signature to read (a builtin): the call will tell
            pass

    @property
    def version(self) -> str:
        return self._version

    def check(self, item: Item, answer: Answer, truth: TruthSnapshot | None = None) -> Score:
        if self.is_async:
            raise ConfigError(f"{self.where} is async: await evaluate(), not check()")
        try:
            result = self.fn(dict(item.fields), answer.text or "", **self.args)
        except FAILURES as exc:  # sys.exit() too; a KeyboardInterrupt may be a real Ctrl-C
            return self._raised(exc)
        return self._score(result)

    async def evaluate(self, item: Item, answer: Answer,
                       truth: TruthSnapshot | None = None) -> Score:
        try:
            if self.is_async:
                result = await in_user_loop(self.fn, dict(item.fields), answer.text or "",
                                                 **self.args)
            else:
                result = await in_daemon_thread(self.fn, dict(item.fields), answer.text or "",
                                                **self.args)
        except FAILURES as exc:
            return self._raised(exc)
        return self._score(result)

    def _raised(self, exc: BaseException) -> Score:
        if isinstance(exc, UserExit):  # raised in its thread: said as what it was
            exc = exc.original
        line = _line_in(exc, self.path)
        message = safe_text(str(exc))[0]  # user text: made safe as every source's is
        return Score.error(f"{self.function} raised {type(exc).__name__}: {message}{line}",
                           self.name, self.version,
                           evidence={"exception": type(exc).__name__, "message": message,
                                     "file": str(self.path), "function": self.function})

    def _score(self, result: Any) -> Score:
        if type(result).__module__ == "numpy" and hasattr(result, "item"):
            result = result.item()  # np.bool_, np.float64 …: the Python value they hold
        if isinstance(result, Score):  # theirs, under this evaluator's name and version; its
            # text made safe as every other source's is (core/text.py)
            problem = _score_problem(result)
            if problem is not None:  # never counted: a NaN mean passes every gate
                return Score.error(f"{self.function} returned a Score with {problem}",
                                   self.name, self.version,
                                   evidence={"returned": safe_text(repr(result)[:300])[0]})
            return Score(None if result.value is None else float(result.value),
                         ScoreStatus(result.status), safe_text(str(result.reason))[0],
                         self.name, self.version,
                         (float(result.full_score[0]), float(result.full_score[1])),
                         safe_value(result.evidence)[0], result.steps)
        if isinstance(result, bool):
            return Score(1.0 if result else 0.0, ScoreStatus.SCORED,
                         f"{self.function} returned {result}", self.name, self.version,
                         evidence={"returned": result})
        if isinstance(result, int | float):
            if not math.isfinite(result):  # 0/0 on one answer: that answer's error, not a
                # wiring mistake that stops the run (a resume would meet it again)
                return Score.error(f"{self.function} returned {result}: it must be a finite "
                                   "number", self.name, self.version,
                                   evidence={"returned": repr(result)})
            return Score(float(result), ScoreStatus.SCORED, f"{self.function} returned "
                         f"{result}", self.name, self.version, evidence={"returned": result})
        raise ConfigError(f"{self.where} returned {type(result).__name__} {result!r:.60}; "
                          "it must return a bool, a finite number or an assay Score")


def _score_problem(score: Score) -> str | None:
    """What makes a check's own Score unusable, or None: its status must be a ScoreStatus,
    its full_score two finite numbers (low ≤ high), a scored value a finite number within
    them, and any other status no value."""
    try:
        status = ScoreStatus(score.status)
    except ValueError:
        return f"status {score.status!r:.40}, not one of {', '.join(ScoreStatus)}"
    full = score.full_score
    if not (isinstance(full, tuple | list) and len(full) == 2
            and all(_finite(v) for v in full) and full[0] <= full[1]):
        return f"full_score {full!r:.60}: it must be two finite numbers, low to high"
    value = score.value
    if value is None:
        return "status scored and no value" if status is ScoreStatus.SCORED else None
    if not _finite(value):
        return f"value {value!r:.40}: it must be a finite number"
    if status is not ScoreStatus.SCORED:
        return f"status {status.value} and a value {value!r:.40}"
    if not full[0] <= value <= full[1]:
        return f"value {value!r:.40} outside its full_score {full[0]:g}..{full[1]:g}"
    return None


def _finite(value: Any) -> bool:
    return (isinstance(value, int | float) and not isinstance(value, bool)
            and math.isfinite(value))


def python_evaluator(path: str, function: str, args: dict[str, Any] | None = None,
                     label: str | None = None) -> PythonEvaluator:
    """A check of one's own: FUNCTION(item, answer, **args) from a Python file."""
    return PythonEvaluator(path=path, function=function, args=args, label=label)
