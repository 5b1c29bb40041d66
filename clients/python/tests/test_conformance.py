"""Every conformance scenario, in both framings, against the real binary, and through the
library in this process."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from superwall_bridge.conformance import ScenarioRun, load, scenario_files

from conftest import PROTOCOL

SCENARIOS = scenario_files(PROTOCOL / "conformance")


def test_there_are_scenarios_for_every_area_the_issue_names() -> None:
    names = {path.stem for path in SCENARIOS}
    for prefix in ("lifecycle", "malformed", "configure", "register-skip", "register-holdout", "register-gated-purchase",
                   "register-non-gated-decline", "register-error", "custom-callback-success", "custom-callback-failure",
                   "custom-callback-timeout", "purchase-cancelled", "purchase-failed", "purchase-timeout", "restore",
                   "subscription-status", "customer-info", "test-mode-purchase-entitlements", "presentation-results"):
        assert any(name.startswith(prefix) for name in names), prefix


@pytest.mark.parametrize("framing", ["ndjson", "content-length"])
@pytest.mark.parametrize("path", SCENARIOS, ids=[path.stem for path in SCENARIOS])
def test_scenario(path: Path, framing: str, bridge: str, trace_directory: Path) -> None:
    trace = trace_directory / f"python-{path.stem}-{framing}.jsonl"
    run = ScenarioRun(load(path), bridge, framing=framing, conformance_directory=PROTOCOL / "conformance", trace=trace)  # type: ignore[arg-type]
    asyncio.run(run.run())


@pytest.mark.parametrize("path", SCENARIOS, ids=[path.stem for path in SCENARIOS])
def test_scenario_in_process(path: Path, bridge: str, library: str, trace_directory: Path) -> None:
    trace = trace_directory / f"python-{path.stem}-in-process.jsonl"
    run = ScenarioRun(load(path), bridge, conformance_directory=PROTOCOL / "conformance", trace=trace, library=library)
    asyncio.run(run.run())
