"""A pydantic ValidationError as Assay's one line (core/specmodel.py): the keys of its `loc`
as the spec writes them, found on their YAML line, and a message in the spec's words."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pydantic import AliasChoices, Field, ValidationError, model_validator

from assay.core.errors import ConfigError
from assay.core.specmodel import SpecModel, problem, spec_error
from assay.core.yamltext import KeyLines, yaml_mapping


class Leg(SpecModel):
    keys_in_order = True
    to: str = Field(description="a place")
    stops: dict[str, int] = Field(default_factory=dict, description="a mapping of PLACE: HOURS")
    days: int = 1

    @model_validator(mode="after")
    def _far(self) -> Any:
        if self.to == "moon":
            raise problem("is too far", "to")
        return self


class Trip(SpecModel):
    legs: list[Leg] = Field(validation_alias=AliasChoices("legs", "leg"), min_length=1,
                            description="a non-empty list of legs")
    note: str | None = None


def line(text: str) -> str:
    p = Path("trip.yaml")
    try:
        Trip.model_validate(yaml_mapping(text, str(p)))
    except ValidationError as exc:
        return str(spec_error(exc, Trip, p, KeyLines(text)))
    raise AssertionError("validated")


@pytest.mark.parametrize(("text", "message"), [
    ("note: x\n", "trip.yaml: missing 'legs' (a non-empty list of legs)"),
    ("legs:\n  - to: a\n  - days: 2\n", "trip.yaml:3: legs[1]: missing 'to' (a place)"),
    ("legs: []\n", "trip.yaml:1: legs: must be a non-empty list of legs"),
    ("legs:\n  - to: a\n    days: two\n", "trip.yaml:3: legs[0].days: must be a whole number"),
    ("note: [a]\nlegs: [{to: a}]\n", "trip.yaml:1: note: must be text"),
    ("legs:\n  - to: a\n    days: 0.5\n", "trip.yaml:3: legs[0].days: must be a whole number"),
    # inside a plain value (a mapping's entry) its field is blamed, in its own words
    ("legs:\n  - to: a\n    stops:\n      b: [1]\n",
     "trip.yaml:3: legs[0].stops: must be a mapping of PLACE: HOURS"),
    # an unknown key before the rest: it says why the other is missing; known keys in order
    ("legs:\n  - too: a\n", "trip.yaml:2: legs[0].too: unknown key (known: to, stops, days)"),
    ("legz: [{to: a}]\n", "trip.yaml:1: legz: unknown key (known: leg, legs, note)"),
    # the spelling used is the one named; a rule of one's own, at the keys it gives
    ("leg:\n  - to: a\n  - to: moon\n", "trip.yaml:3: leg[1].to: is too far"),
    # a key YAML reads as no text (`on:` is true), at the mapping that holds it
    ("legs:\n  - to: a\n    on: 1\n", "trip.yaml:2: legs[0]: a key read as True, not as text "
     "(YAML reads an unquoted on, off, yes, no or number so): quote it"),
    ("legs:\n  - to: a\n    stops: {no: 1}\n", "trip.yaml:3: legs[0].stops: a key read as "
     "False, not as text (YAML reads an unquoted on, off, yes, no or number so): quote it"),
])
def test_errors_read_as_one_line(text: str, message: str) -> None:
    assert line(text) == message


def test_no_yaml_no_line() -> None:
    with pytest.raises(ValidationError) as exc:
        Trip.model_validate({"legs": [{"to": 1, "days": "x"}]})
    err = spec_error(exc.value, Trip, Path("trip.toml"), KeyLines(None))
    assert isinstance(err, ConfigError)
    assert str(err) == "trip.toml: legs[0].days: must be a whole number"  # 1 is read as text
