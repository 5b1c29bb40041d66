"""Finding the bridge's files: the binary and the in-process library are looked for the same
way, and only where the caller or this package put them.

An installed client runs or loads only what the caller names (an argument or an environment
variable), what its own package ships, and, for the binary, ``superwall-bridge`` on ``PATH``. It
never searches the working directory or its parents: a ``.build`` folder planted in any of
them would otherwise run its code inside the app. A client used from the bridge's own checkout
(``clients/python`` on ``sys.path``, for development) also finds that checkout's build, found
from this file's own location."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterable

from .errors import BridgeNotFoundError, SystemRequirementError

#: What tells that ``/proc`` is mounted.
PROC_SELF = "/proc/self/exe"


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


def shipped(relative: str) -> str | None:
    """A file the platform wheel ships inside this package (``bin/…``, ``lib/…``)."""
    candidate = Path(__file__).resolve().parent / relative
    return str(candidate) if candidate.is_file() else None


def checkout_build(name: str, folders: Iterable[str]) -> str | None:
    """``.build/<folder>/<name>`` of the bridge's checkout this very file lies in
    (``<checkout>/clients/python/superwall_bridge``), for development; None for an install."""
    package = Path(__file__).resolve().parent
    checkout = package.parents[1]
    if package != checkout / "clients" / "python" / "superwall_bridge" or not (checkout / "Package.swift").is_file():
        return None
    for folder in folders:
        candidate = checkout / ".build" / folder / name
        if candidate.is_file():
            return str(candidate)
    return None


def require_proc() -> None:
    """Fails at once, naming ``/proc``, where the bridge could not start: without it the
    binary's loader cannot find ``libsuperwall_bridge.so`` beside it (``$ORIGIN``), and the
    Swift runtime's libdispatch stops the process with SIGILL as it sizes its thread pool."""
    if not os.path.exists(PROC_SELF):
        raise SystemRequirementError(
            "superwall-bridge needs /proc mounted (this system has no /proc/self): the loader finds "
            "libsuperwall_bridge.so through it and the Swift runtime reads it; mount it with "
            "`mount -t proc proc /proc` in the chroot or container")
