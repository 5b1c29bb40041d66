"""Decoding the protocol's JSON into the models' dataclasses.

Fields are the wire's camelCase keys in snake_case. Decoding is lenient, as the protocol asks
of clients: unknown fields are ignored (each model keeps the whole wire object in ``raw``),
missing ones take their defaults, and dates become timezone-aware ``datetime`` objects.
"""

from __future__ import annotations

import dataclasses
import re
import types
import typing
from datetime import datetime, timezone
from typing import Any, ClassVar, Literal, Mapping, TypeVar, Union

T = TypeVar("T", bound="WireModel")

_CAMEL_BOUNDARY = re.compile(r"_([a-z])")


def _camel(name: str) -> str:
    return _CAMEL_BOUNDARY.sub(lambda match: match.group(1).upper(), name)


def parse_date(value: Any) -> datetime | None:
    """An ISO-8601 string (``2026-11-22T10:00:00.000Z``) or milliseconds since 1970."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)):
        return datetime.fromtimestamp(value / 1000, tz=timezone.utc)
    if isinstance(value, str):
        try:
            return datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return None
    return None


def format_date(value: datetime) -> str:
    """ISO-8601 UTC with milliseconds, as the bridge writes dates."""
    if value.tzinfo is None:
        value = value.replace(tzinfo=timezone.utc)
    return value.astimezone(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class WireModel:
    """Decoding from the wire's JSON for the dataclasses below."""

    #: Wire keys that do not follow the camelCase rule, by field name.
    WIRE_NAMES: ClassVar[Mapping[str, str]] = {}

    @classmethod
    def from_wire(cls: type[T], data: Any) -> T:
        if not isinstance(data, dict):
            raise TypeError(f"{cls.__name__} expects a JSON object, got {type(data).__name__}")
        hints = _hints(cls)
        values: dict[str, Any] = {}
        for item in dataclasses.fields(cls):  # type: ignore[arg-type]
            if item.name == "raw":
                continue
            key = cls.WIRE_NAMES.get(item.name, _camel(item.name))
            if key in data:
                values[item.name] = _decode(hints[item.name], data[key])
        instance = cls(**values)
        if any(item.name == "raw" for item in dataclasses.fields(cls)):  # type: ignore[arg-type]
            object.__setattr__(instance, "raw", data)
        return instance


_HINTS: dict[type, dict[str, Any]] = {}


def _hints(cls: type) -> dict[str, Any]:
    if cls not in _HINTS:
        _HINTS[cls] = typing.get_type_hints(cls)
    return _HINTS[cls]


def _decode(hint: Any, value: Any) -> Any:
    origin = typing.get_origin(hint)
    if origin in (Union, types.UnionType):
        if value is None:
            return None
        options = [option for option in typing.get_args(hint) if option is not type(None)]
        return _decode(options[0], value) if len(options) == 1 else value
    if value is None:
        return None
    if origin is list:
        (element,) = typing.get_args(hint) or (Any,)
        return [_decode(element, item) for item in value] if isinstance(value, list) else []
    if origin is dict or hint is dict:
        return dict(value) if isinstance(value, dict) else {}
    if origin is Literal:
        return value
    if hint is datetime:
        return parse_date(value)
    if isinstance(hint, type) and issubclass(hint, WireModel):
        return hint.from_wire(value) if isinstance(value, dict) else None
    if hint is float and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    return value
