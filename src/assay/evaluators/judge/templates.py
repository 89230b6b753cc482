"""Judge templates as files: a Markdown file with YAML front matter, or a YAML file.

    ---
    name: coze-correctness
    description: …
    placeholders: double          # {{var}} (Coze) or single: {var} (FinSearchComp)
    score: {min: 0, max: 1, integer: true, nullable: false}
    variables: [input, output, reference_output]
    ---
    [system]
    …system message…
    [user]
    …user message…

The `[system]` / `[user]` lines mark the messages (they cannot clash with the Markdown headings
the prompts themselves use). A YAML template has the same keys plus `system` and `user`. The
version is a hash of the file, so a stored judgment names the exact text that produced it.
"""

from __future__ import annotations

import difflib
import hashlib
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from assay.core.errors import ConfigError
from assay.core.render import DOUBLE, SINGLE, placeholders
from assay.core.yamltext import yaml_mapping

from .parse import ScoreSchema

BUILTIN_DIR = Path(__file__).parent / "builtin"
USER_DIR = Path("evaluators")  # templates a project adds, relative to the working directory
_SECTION = re.compile(r"^\[(system|user)\][ \t]*$", re.MULTILINE)
_NAME = re.compile(r"^[a-z0-9][a-z0-9._-]*$")


@dataclass(frozen=True)
class Template:
    name: str
    description: str
    syntax: str
    schema: ScoreSchema
    system: str
    user: str
    variables: tuple[str, ...]
    version: str
    source: str  # file path, or "item" for item-judge
    meta: dict[str, Any] = field(default_factory=dict)


# The last template read from each file, with the text it was read from. A registry lookup
# reads the template folders again (a template added there is known at once) and `assay run`
# looks up four times: each file's text is read every time, and parsed (YAML, ~4 M
# instructions a file) only when it is not the text read before.
_READ: dict[str, tuple[str, Template]] = {}


def load_template(path: str | Path) -> Template:
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"{p}: cannot read template: {exc.strerror}") from None
    before = _READ.get(str(p))
    if before is not None and before[0] == text:
        # a meta dict of its own, as a fresh parse gives: one caller's change stays its own
        return replace(before[1], meta=dict(before[1].meta))
    template = _parse(p, text)
    _READ[str(p)] = (text, template)
    return template


def _parse(p: Path, text: str) -> Template:
    if p.suffix.lower() in (".yaml", ".yml"):
        meta = _yaml(text, p)
        system, user = meta.pop("system", ""), meta.pop("user", "")
    else:
        if not text.startswith("---"):
            raise ConfigError(f"{p}:1: a Markdown template starts with '---' front matter")
        try:
            _, front, body = text.split("---", 2)
        except ValueError:
            raise ConfigError(f"{p}:1: front matter is not closed by '---'") from None
        meta = _yaml(front, p)
        system, user = _sections(body, p, front.count("\n") + 2)
    return build_template(meta, str(system or ""), str(user or ""),
                          version=hashlib.sha256(text.encode()).hexdigest()[:12], source=str(p))


def _yaml(text: str, p: Path) -> dict[str, Any]:
    return yaml_mapping(text, str(p), what="front matter")


def _sections(body: str, p: Path, first_line: int) -> tuple[str, str]:
    parts: dict[str, str] = {}
    marks = list(_SECTION.finditer(body))
    if not marks:
        raise ConfigError(f"{p}:{first_line}: no [system] or [user] section")
    for i, m in enumerate(marks):
        end = marks[i + 1].start() if i + 1 < len(marks) else len(body)
        if m.group(1) in parts:
            line = first_line + body.count("\n", 0, m.start())
            raise ConfigError(f"{p}:{line}: second [{m.group(1)}] section")
        parts[m.group(1)] = body[m.end():end].strip("\n")
    return parts.get("system", ""), parts.get("user", "")


def build_template(meta: dict[str, Any], system: str, user: str, *, version: str,
                   source: str) -> Template:
    name = str(meta.get("name", "")).strip()
    if not _NAME.match(name):
        raise ConfigError(f"{source}: template name '{name}' must be lower-case letters, "
                          "digits, '.', '_' or '-'")
    syntax = str(meta.get("placeholders", DOUBLE))
    if syntax not in (SINGLE, DOUBLE):
        raise ConfigError(f"{source}: placeholders must be 'single' or 'double', not '{syntax}'")
    if not user.strip():
        raise ConfigError(f"{source}: the [user] message is empty")
    found = tuple(placeholders(system + "\n" + user, syntax))
    declared = meta.get("variables")
    if declared is not None:
        declared_t = tuple(str(v) for v in declared)
        if set(declared_t) != set(found):
            extra = sorted(set(found) - set(declared_t))
            unused = sorted(set(declared_t) - set(found))
            raise ConfigError(
                f"{source}: variables do not match the messages"
                + (f"; used but not declared: {', '.join(extra)}" if extra else "")
                + (f"; declared but not used: {', '.join(unused)}" if unused else ""))
    score = meta.get("score") or {}
    if isinstance(score, dict) and None in score:
        raise ConfigError(f"{source}: in YAML the key 'null' means nothing; write nullable: true")
    if not isinstance(score, dict):
        raise ConfigError(f"{source}: score must be a mapping like {{min: 0, max: 1}}")
    try:
        schema = ScoreSchema(float(score.get("min", 0)), float(score.get("max", 1)),
                             bool(score.get("integer", True)), bool(score.get("nullable", False)))
    except (TypeError, ValueError):
        raise ConfigError(f"{source}: score min/max must be numbers") from None
    if schema.minimum > schema.maximum:
        raise ConfigError(f"{source}: score min is above max")
    return Template(name, str(meta.get("description", "")).strip(), syntax, schema,
                    system, user, found, version, source,
                    {k: v for k, v in meta.items() if k not in
                     ("name", "description", "placeholders", "score", "variables")})


def all_templates(extra_dirs: tuple[Path, ...] = ()) -> dict[str, Template]:
    """Name → template, built-ins first; a project's `evaluators/` folder may add templates but
    not silently replace a built-in (an error names both files). Each file is read once."""
    found: dict[str, Template] = {}
    for folder in (BUILTIN_DIR, USER_DIR, *extra_dirs):
        if not folder.is_dir():
            continue
        for path in sorted(folder.iterdir()):
            if path.suffix.lower() not in (".md", ".yaml", ".yml"):
                continue
            t = load_template(path)
            if t.name in found:
                raise ConfigError(f"template '{t.name}' is defined twice: "
                                  f"{found[t.name].source} and {path}")
            found[t.name] = t
    return found


def template_paths(extra_dirs: tuple[Path, ...] = ()) -> dict[str, Path]:
    """Name → file, as `all_templates` finds them."""
    return {name: Path(t.source) for name, t in all_templates(extra_dirs).items()}


def get_template(name_or_path: str) -> Template:
    p = Path(name_or_path)
    if p.suffix.lower() in (".md", ".yaml", ".yml") and p.exists():
        return load_template(p)
    paths = template_paths()
    if name_or_path not in paths:
        close = difflib.get_close_matches(name_or_path, paths, n=3, cutoff=0.5)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        raise ConfigError(f"unknown judge template '{name_or_path}'{hint}")
    return load_template(paths[name_or_path])


def item_template(system: str, user: str) -> Template:
    """`item-judge`: the judge an item carries (FinSearchComp's `judge_system_prompt` and
    `judge_prompt_template`, `{var}` placeholders); its score is {0, 1} or "null"."""
    version = hashlib.sha256((system + "\0" + user).encode()).hexdigest()[:12]
    return build_template({"name": "item-judge", "placeholders": SINGLE,
                           "score": {"min": 0, "max": 1, "nullable": True}},
                          system, user, version=version, source="item")
