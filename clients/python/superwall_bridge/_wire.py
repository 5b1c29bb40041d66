"""Decoding the protocol's JSON into the models' dataclasses.

Fields are the wire's camelCase keys in snake_case. Decoding is lenient, as the protocol asks
of clients: unknown fields are ignored (each model keeps the whole wire object in ``raw``),
missing ones take their defaults, and dates become timezone-aware ``datetime`` objects.
"""

from __future__ import annotations

import ast
import dataclasses
import re
import sys
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
    """The fields' types. The annotations are text (``from __future__ import annotations``), and
    ``X | None`` in them is evaluated as ``Union[X, None]``: Python 3.9 cannot evaluate ``|``
    between types, and ``typing.get_type_hints`` would fail there."""
    if cls not in _HINTS:
        hints: dict[str, Any] = {}
        for klass in reversed(cls.__mro__):
            namespace = {**vars(typing), **vars(sys.modules[klass.__module__])}
            for name, annotation in vars(klass).get("__annotations__", {}).items():
                hints[name] = _evaluate(annotation, namespace) if isinstance(annotation, str) else annotation
        _HINTS[cls] = hints
    return _HINTS[cls]


class _UnionsOfTypes(ast.NodeTransformer):
    """``A | B`` as ``Union[A, B]``."""

    def visit_BinOp(self, node: ast.BinOp) -> ast.AST:
        self.generic_visit(node)
        if not isinstance(node.op, ast.BitOr):
            return node
        union = ast.Subscript(value=ast.Name(id="Union", ctx=ast.Load()),
                              slice=ast.Tuple(elts=[node.left, node.right], ctx=ast.Load()), ctx=ast.Load())
        return ast.copy_location(union, node)


def _evaluate(annotation: str, namespace: dict[str, Any]) -> Any:
    tree = _UnionsOfTypes().visit(ast.parse(annotation, mode="eval"))
    return eval(compile(ast.fix_missing_locations(tree), "<annotation>", "eval"), namespace)  # noqa: S307 - our own annotations


def _decode(hint: Any, value: Any) -> Any:
    origin = typing.get_origin(hint)
    if origin is Union or origin is getattr(types, "UnionType", Union):
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
