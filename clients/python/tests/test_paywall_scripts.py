"""The pytest plugin fails a test at once, and says why, when a paywall script does not go as
written: the paywall left on screen, an action answered ``failed``, a script never used. Each
inner test runs in a pytest of its own against the real bridge."""

from __future__ import annotations

import json
import time

import pytest

from conftest import PROTOCOL

pytest_plugins = ["pytester"]

PREAMBLE = '''
from superwall_bridge.testing import PaywallAction
ANNUAL = "com.pockettrainer.pro.annual"
def show_the_gate(superwall):
    superwall.override_assignment("2002", "3004")
'''


def run(pytester: pytest.Pytester, body: str) -> tuple[pytest.RunResult, float]:
    pytester.makepyfile(test_inner=PREAMBLE + body)
    started = time.monotonic()
    result = pytester.runpytest_subprocess("-q", "-p", "no:cacheprovider")
    return result, time.monotonic() - started


def test_a_cancelled_purchase_that_leaves_the_paywall_up_fails_at_once(pytester: pytest.Pytester) -> None:
    result, took = run(pytester, '''
def test_cancel(superwall, paywall_driver, fake_store):
    show_the_gate(superwall)
    fake_store.will(ANNUAL, "cancelled")
    paywall_driver.then(PaywallAction.purchase(ANNUAL))
    superwall.register("start_workout", params={"workout_tier": "pro"})
''')
    result.assert_outcomes(failed=1)
    output = result.stdout.str()
    assert 'paywall "pro-workouts-gated"' in output and "still on screen after its script ran out" in output
    assert "purchase com.pockettrainer.pro.annual → cancelled" in output
    assert took < 10


def test_a_restore_that_finds_nothing_fails_at_once(pytester: pytest.Pytester) -> None:
    result, took = run(pytester, '''
def test_restore(superwall, paywall_driver):
    show_the_gate(superwall)
    paywall_driver.then(PaywallAction.restore())
    superwall.register("start_workout", params={"workout_tier": "pro"})
''')
    result.assert_outcomes(failed=1)
    output = result.stdout.str()
    assert 'paywall "pro-workouts-gated"' in output and "restore → " in output
    assert took < 10


def test_a_mistyped_product_is_answered_failed_and_fails_the_test(pytester: pytest.Pytester) -> None:
    result, took = run(pytester, '''
def test_typo(superwall, paywall_driver):
    show_the_gate(superwall)
    paywall_driver.then(PaywallAction.purchase("com.pockettrainer.pro.anual"))
    superwall.register("start_workout", params={"workout_tier": "pro"})
''')
    result.assert_outcomes(failed=1)
    output = result.stdout.str()
    assert "purchase com.pockettrainer.pro.anual was answered failed" in output
    assert 'paywall "pro-workouts-gated"' in output
    assert took < 10


def test_a_failure_the_script_expects_passes(pytester: pytest.Pytester) -> None:
    result, _ = run(pytester, '''
def test_expected(superwall, paywall_driver):
    show_the_gate(superwall)
    paywall_driver.then(PaywallAction.purchase("com.pockettrainer.pro.anual").expecting_failure(), PaywallAction.close())
    result = superwall.register("start_workout", params={"workout_tier": "pro"})
    assert not result.feature_granted
''')
    result.assert_outcomes(passed=1)


def test_a_script_no_paywall_used_fails_unless_optional(pytester: pytest.Pytester) -> None:
    result, _ = run(pytester, '''
def test_unused(superwall, paywall_driver):
    paywall_driver.then(PaywallAction.purchase(ANNUAL))
    superwall.set_user_attributes({"plan": "free"})

def test_optional(superwall, paywall_driver):
    paywall_driver.then(PaywallAction.purchase(ANNUAL), optional=True)
    superwall.set_user_attributes({"plan": "free"})
''')
    result.assert_outcomes(passed=2, errors=1)
    assert "paywall_driver.then(purchase com.pockettrainer.pro.annual) was never used: paywalls shown none" in (
        result.stdout.str())


def test_a_call_that_times_out_says_which_paywall_is_still_up(pytester: pytest.Pytester) -> None:
    result, _ = run(pytester, '''
import pytest
@pytest.fixture
def superwall_timeout():
    return 5.0
def test_kept_open(superwall, paywall_driver):
    show_the_gate(superwall)
    paywall_driver.then(keep_open=True)
    superwall.register("start_workout", params={"workout_tier": "pro"})
''')
    result.assert_outcomes(failed=1)
    assert 'register got no answer within 5 s: paywall "pro-workouts-gated"' in result.stdout.str()
    assert "is still on screen" in result.stdout.str()


def test_a_mistyped_placement_fails_the_test_naming_the_placement_meant(pytester: pytest.Pytester) -> None:
    result, _ = run(pytester, '''
import pytest

def test_typo(superwall):
    superwall.register("Daily_limit_reachd")

def test_typo_asked(superwall):
    superwall.presentation_result("daily_limit_reachd")

@pytest.mark.superwall_allows_unknown_placements
def test_skipped_as_superwallkit_does(superwall):
    assert superwall.register("daily_limit_reachd").feature_granted
''')
    result.assert_outcomes(failed=2, passed=1)
    output = result.stdout.str()
    assert "UnknownPlacementError: no campaign of the config has the placement 'Daily_limit_reachd'; did you mean " \
        "'daily_limit_reached'?" in output
    assert "'daily_limit_reachd'; did you mean 'daily_limit_reached'?" in output


def test_an_exception_in_the_tests_own_callback_fails_the_test(pytester: pytest.Pytester) -> None:
    result, took = run(pytester, '''
import pytest
from superwall_bridge.testing import EventRecorder

class Brittle(EventRecorder):
    def handle_superwall_event(self, event):
        super().handle_superwall_event(event)
        if event.name == "user_attributes":
            raise KeyError("plan")

@pytest.fixture
def event_recorder():
    return Brittle()

def test_brittle_delegate(superwall):
    superwall.set_user_attributes({"plan": "pro"})
''')
    # The call fails with it when the event comes before its answer, else the test's end does.
    outcomes = result.parseoutcomes()
    assert outcomes.get("failed", 0) + outcomes.get("errors", 0) >= 1, outcomes
    assert "your callback for delegate/handleSuperwallEvent raised KeyError: 'plan'" in result.stdout.str()
    assert took < 10


def test_the_marker_serves_the_tests_own_config_over_http_with_superwall_config_overridden(
        pytester: pytest.Pytester) -> None:
    demo = json.loads((PROTOCOL.parent / "config" / "demo.json").read_text())
    demo["build_id"] = "the-tests-own"
    pytester.path.joinpath("own-config.json").write_text(json.dumps(demo))
    other = dict(demo, build_id="the-markers-own")
    pytester.makeconftest(f'''
import pytest

@pytest.fixture
def superwall_config():
    return {{"type": "file", "path": {str(pytester.path / "own-config.json")!r}}}
''')
    result, _ = run(pytester, f'''
import pytest

def test_on_the_file(superwall, fake_superwall_api):
    assert superwall.refresh_configuration().build_id == "the-tests-own"
    assert fake_superwall_api.requests("/api/v1/static_config") == []

@pytest.mark.superwall_api
def test_over_http_on_the_same_config(superwall, fake_superwall_api):
    assert superwall.refresh_configuration().build_id == "the-tests-own"
    assert len(fake_superwall_api.requests("/api/v1/static_config")) >= 1

@pytest.mark.superwall_api(config={other!r})
def test_over_http_on_the_markers_config(superwall, fake_superwall_api):
    assert superwall.refresh_configuration().build_id == "the-markers-own"
''')
    result.assert_outcomes(passed=3)


def test_a_tests_data_directory_is_removed_when_its_bridge_closes_unless_the_test_keeps_it(pytester: pytest.Pytester) -> None:
    result, _ = run(pytester, '''
import os, pytest
def test_removed(superwall, superwall_options):
    superwall.register("workout_shared")
    with open("removed.txt", "w") as note:
        note.write(superwall_options["dataDirectory"])
@pytest.mark.superwall_keeps_data
def test_kept(superwall, superwall_options):
    with open("kept.txt", "w") as note:
        note.write(superwall_options["dataDirectory"])
def test_gone_after_the_first():
    assert not os.path.exists(open("removed.txt").read())
    assert os.path.isdir(open("kept.txt").read())
''')
    result.assert_outcomes(passed=3)
