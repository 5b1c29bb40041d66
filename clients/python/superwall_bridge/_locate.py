"""Finding the bridge's files: the binary and the in-process library are looked for the same
way, from what the caller names to what a checkout built."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterable

from .errors import BridgeNotFoundError


def named(explicit: str | os.PathLike[str] | None, variable: str, what: str) -> str | None:
    """``explicit``, else the environment ``variable``; either must be a file."""
    if explicit is not None:
        if not Path(explicit).is_file():
            raise BridgeNotFoundError(f"no {what} at {explicit}")
        return str(explicit)
    if environment := os.environ.get(variable):
        if not Path(environment).is_file():
            raise BridgeNotFoundError(f"{variable} names {environment}, which is not a file")
        return environment
    return None


def built(name: str, folders: Iterable[str]) -> str | None:
    """``.build/<folder>/<name>`` in the working directory, a folder above it, or the checkout
    this package is installed from."""
    for root in [Path.cwd(), *Path.cwd().parents, *Path(__file__).resolve().parents]:
        for folder in folders:
            candidate = root / ".build" / folder / name
            if candidate.is_file():
                return str(candidate)
    return None
