"""The fake Superwall API fixture, with a bridge configured over HTTP on it."""

from __future__ import annotations

import time
from typing import Any

import pytest

from superwall_bridge import SyncSuperwall
from superwall_bridge.testing import FakeSuperwallAPI


@pytest.fixture
def superwall_config(fake_superwall_api: FakeSuperwallAPI) -> dict[str, Any]:
    """A conftest-style override: every test of this module runs over HTTP."""
    return fake_superwall_api.config_source


def test_a_register_and_a_flush_reach_the_fake_collector(superwall: SyncSuperwall,
                                                         fake_superwall_api: FakeSuperwallAPI) -> None:
    config = fake_superwall_api.requests("/api/v1/static_config")
    assert config and config[0].headers["authorization"] == "Bearer pk_t…"
    assert config[0].query == "pk=pk_t…"
    superwall.register("open_coach_chat")
    assert superwall.flush_events() > 0
    names = fake_superwall_api.event_names()
    assert "app_launch" in names and "open_coach_chat" in names


# The server holds the onboarding experiment's other variant (seed 0 draws 3002).
@pytest.mark.superwall_api(script={"assignments": [{"experimentId": "2001", "variantId": "3001"}]})
def test_the_servers_assignment_is_adopted_and_a_drawn_one_confirmed(superwall: SyncSuperwall,
                                                                   fake_superwall_api: FakeSuperwallAPI) -> None:
    superwall.identify("runner_1", restore_paywall_assignments=True)
    variants = {assignment.experiment_id: assignment.variant.id for assignment in superwall.assignments()}
    assert variants["2001"] == "3001"
    superwall.confirm_all_assignments()
    # What a placement's audience matched is confirmed; the server's own needs no confirming.
    drawn = {assignment.experiment_id for assignment in superwall.assignments() if assignment.is_sent_to_server}
    drawn.discard("2001")
    assert drawn
    # The confirmations are posted in the background.
    deadline = time.monotonic() + 5
    while confirmed(fake_superwall_api) != drawn and time.monotonic() < deadline:
        time.sleep(0.01)
    assert confirmed(fake_superwall_api) == drawn


def confirmed(api: FakeSuperwallAPI) -> set[str]:
    return {entry["experiment_id"] for entry in api.confirmed_assignments()}


def test_a_script_that_cannot_be_read_is_refused_with_its_place() -> None:
    with pytest.raises(RuntimeError, match=r"\$\.answers\./api/v1/events\[0\]\.status"):
        FakeSuperwallAPI(script={"answers": {"/api/v1/events": {"status": "busy"}}}).start()
