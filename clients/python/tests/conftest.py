"""Fixtures: the bridge binary under test, the checkout's protocol folder, and where wire
traces go (the schema test reads them)."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from superwall_bridge.connection import find_library
from superwall_bridge import find_bridge

REPOSITORY = Path(__file__).resolve().parents[3]
PROTOCOL = REPOSITORY / "protocol"


@pytest.fixture(scope="session")
def bridge() -> str:
    """``SUPERWALL_BRIDGE``, else the checkout's ``swift build`` output."""
    return os.environ.get("SUPERWALL_BRIDGE") or find_bridge()


@pytest.fixture(scope="session")
def library() -> str:
    """``SUPERWALL_BRIDGE_LIBRARY``, else the checkout's build of ``libsuperwall_bridge.so``."""
    return find_library()


@pytest.fixture(scope="session")
def trace_directory(request: pytest.FixtureRequest) -> Iterator[Path]:
    """``SUPERWALL_WIRE_TRACES`` (shared with the Swift end-to-end suites), else a temporary
    folder, removed when the run ends unless a test failed (its traces say what was sent)."""
    given = os.environ.get("SUPERWALL_WIRE_TRACES")
    directory = Path(given or tempfile.mkdtemp(prefix="superwall-traces-"))
    directory.mkdir(parents=True, exist_ok=True)
    yield directory
    if not given and request.session.testsfailed == 0:
        shutil.rmtree(directory, ignore_errors=True)


@pytest.fixture
def bridge_arguments(request: pytest.FixtureRequest, trace_directory: Path) -> list[str]:
    """Arguments that trace the bridge's frames for the schema test, one file a test."""
    return ["--trace", str(trace_directory / f"python-{request.node.name}.jsonl")]


@pytest.fixture
def data_directory(tmp_path: Path) -> str:
    return str(tmp_path / "data")


def embedded(data_directory: str, **options: object) -> dict[str, object]:
    """``configure`` options for the embedded demo config in a fresh data directory."""
    return {"configSource": {"type": "embedded"}, "dataDirectory": data_directory, **options}
