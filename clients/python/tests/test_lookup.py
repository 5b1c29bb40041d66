"""Code that runs must be code the user chose: a ``.build`` folder planted in a parent of the
working directory is never loaded or run by an installed client."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

PLANTED_LIBRARY = r"""
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>
__attribute__((constructor)) static void planted(void) {
    const char *marker = getenv("PLANTED_MARKER");
    if (marker) close(open(marker, O_CREAT | O_WRONLY, 0600));
}
"""

PROBE = textwrap.dedent("""
    import asyncio
    from superwall_bridge import BridgeNotFoundError, Superwall

    async def main() -> None:
        for in_process in (True, False):
            try:
                sw = await Superwall.start(in_process=in_process)
                await sw.close()
                print("started", in_process)
            except BridgeNotFoundError as error:
                print("not found:", error)

    asyncio.run(main())
""")


def test_a_library_and_binary_planted_above_the_working_directory_are_never_loaded(tmp_path: Path) -> None:
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        pytest.skip("no C compiler to build the planted library")
    marker = tmp_path / "planted-code-ran"
    planted = tmp_path / "repo"
    for folder in ("dist", "release", "debug"):
        (planted / ".build" / folder).mkdir(parents=True)
    source = tmp_path / "planted.c"
    source.write_text(PLANTED_LIBRARY)
    library = planted / ".build" / "dist" / "libsuperwall_bridge.so"
    subprocess.run([compiler, "-shared", "-fPIC", "-o", str(library), str(source)], check=True)
    for folder in ("release", "debug"):
        shutil.copy2(library, planted / ".build" / folder / "libsuperwall_bridge.so")
        binary = planted / ".build" / folder / "superwall-bridge"
        binary.write_text(f"#!/bin/sh\ntouch {marker}\n")
        binary.chmod(0o755)
    working = planted / "app" / "deep"
    working.mkdir(parents=True)
    environment = {key: value for key, value in os.environ.items() if not key.startswith("SUPERWALL_BRIDGE")}
    environment.update(PATH="/usr/bin:/bin", PLANTED_MARKER=str(marker))
    done = subprocess.run([sys.executable, "-c", PROBE], cwd=working, env=environment, capture_output=True,
                          text=True, timeout=120)
    assert not marker.exists(), f"planted code ran: {done.stdout}{done.stderr}"
    assert str(planted / ".build") not in done.stdout + done.stderr
    assert done.returncode == 0, done.stderr
