"""The ``superwall-bridge`` command of the platform wheel: runs the bundled binary."""

from __future__ import annotations

import os
import sys

from .client import bundled_bridge


def main() -> None:
    binary = bundled_bridge()
    if binary is None:
        sys.exit("superwall-bridge: this install has no bundled binary (it comes with the platform wheel); "
                 "set SUPERWALL_BRIDGE or build the bridge with `swift build`")
    os.execv(binary, [binary, *sys.argv[1:]])
