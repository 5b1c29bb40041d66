"""The pytest plugin: each test gets a configured bridge of its own, with test doubles.

Registered by installing the package (entry point ``pytest11``). Fixtures:

- ``superwall``: a :class:`~superwall_bridge.SyncSuperwall`, configured in a data directory of
  the test's own (removed once the bridge closed, unless the test is marked
  ``@pytest.mark.superwall_keeps_data``), on the manual clock (``advance_clock`` moves it) and with ``randomSeed``
  ``superwall_seed`` (0), so every run draws the same variants. It is wired to the three below.
- ``fake_store``: a :class:`~superwall_bridge.testing.FakeStore` purchase controller, which
  has reported the user's status (inactive) by the time the test starts.
- ``paywall_driver``: a :class:`~superwall_bridge.testing.PaywallDriver` presenter that closes
  a paywall no script acted on. A script that leaves its paywall on screen, an action answered
  ``failed`` that the script did not expect, and a script never used fail the test.
- ``superwall_timeout``: how long each call waits (10 s), ``register`` included.

An exception raised in a callback of the test's own (a delegate method, say) fails the test:
the calls waiting raise :class:`~superwall_bridge.testing.CallbackError`, and the test fails
at its end whatever it caught.

A placement the config does not know fails the test (``UnknownPlacementError``, naming the
nearest one) where SuperwallKit would skip it and grant the feature; a test of that very
behaviour is marked ``@pytest.mark.superwall_allows_unknown_placements``.
- ``event_recorder``: a :class:`~superwall_bridge.testing.EventRecorder` delegate.
- ``superwall_config``: the config source, the embedded demo app's by default. Override it in
  a ``conftest.py`` with ``{"type": "file", "path": ...}`` to test your own config; a test
  marked ``superwall_api`` is served that same config over HTTP.
- ``superwall_options``: the rest of ``configure``'s options, to extend in the same way.
- ``fake_superwall_api``: a :class:`~superwall_bridge.testing.FakeSuperwallAPI` serving the
  test's config, started with ``superwall_api_script`` (none by default).

A test marked ``@pytest.mark.superwall_api(script={...}, config=...)`` runs in HTTP mode: its
bridge is configured over HTTP on ``fake_superwall_api``, started with that script and serving
that config (a path or an object; ``superwall_config``'s file when none is given).

The bridge is found as the client finds it: ``$SUPERWALL_BRIDGE``, the binary the package ships, then ``PATH``.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any, Iterator

import pytest

from .sync import SyncSuperwall
from .testing import CallbackError, EventRecorder, FakeStore, FakeSuperwallAPI, PaywallDriver


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "superwall_api(script=None, config=None): configure the test's bridge over HTTP on the fake "
                   "Superwall API, serving config (else superwall_config's)")
    config.addinivalue_line(
        "markers", "superwall_keeps_data: keep the test's data directory after its bridge closed (it is removed "
                   "otherwise)")
    config.addinivalue_line(
        "markers", "superwall_allows_unknown_placements: a placement the config lacks is skipped, as SuperwallKit "
                   "skips it, instead of failing the test")


@pytest.fixture
def superwall_config() -> dict[str, Any]:
    """The config the test's bridge uses (``configure``'s ``options.configSource``): the
    embedded demo app's. Override it with ``{"type": "file", "path": ...}`` for your own; a test
    marked ``superwall_api`` is then served that same config over HTTP."""
    return {"type": "embedded"}


@pytest.fixture
def superwall_seed() -> int:
    """``configure``'s ``options.randomSeed``: the same seed draws the same variants."""
    return 0


@pytest.fixture
def superwall_options(tmp_path: Path, superwall_config: dict[str, Any], superwall_seed: int,
                      request: pytest.FixtureRequest) -> dict[str, Any]:
    """``configure``'s options: the config (over HTTP from ``fake_superwall_api`` for a test
    marked ``superwall_api``), a data directory of the test's own, the manual clock, the seed."""
    source = superwall_config
    if request.node.get_closest_marker("superwall_api") is not None:
        api: FakeSuperwallAPI = request.getfixturevalue("fake_superwall_api")
        source = api.config_source
    return {
        "configSource": source,
        "dataDirectory": str(tmp_path / "superwall-data"),
        "clock": "manual",
        "randomSeed": superwall_seed,
    }


@pytest.fixture
def superwall_api_script(request: pytest.FixtureRequest) -> dict[str, Any] | None:
    """The fake API's script (docs/testing.md): the ``superwall_api`` marker's ``script``, if any."""
    marker = request.node.get_closest_marker("superwall_api")
    script: dict[str, Any] | None = marker.kwargs.get("script") if marker is not None else None
    return script


@pytest.fixture
def fake_superwall_api(superwall_api_script: dict[str, Any] | None, superwall_config: dict[str, Any],
                       request: pytest.FixtureRequest) -> Iterator[FakeSuperwallAPI]:
    """A local Superwall API serving the test's config: the ``superwall_api`` marker's
    ``config`` (a path or an object), else ``superwall_config``'s file, else the demo app's."""
    marker = request.node.get_closest_marker("superwall_api")
    config: Any = marker.kwargs.get("config") if marker is not None else None
    if config is None:
        config = _served_config(superwall_config)
    with FakeSuperwallAPI(config=config, script=superwall_api_script) as api:
        yield api


def _served_config(source: dict[str, Any]) -> str | None:
    """What the fake API serves for the config source ``superwall_config`` names."""
    if source.get("type") == "file":
        return str(source["path"])
    if source.get("type") == "embedded":
        return None
    raise pytest.UsageError(
        f"superwall_config is {source!r}: the fake API can serve a file or the embedded config; give the "
        "superwall_api marker a config=... for this test")


@pytest.fixture
def superwall_timeout() -> float:
    """Seconds any call of the ``superwall`` fixture waits, ``register`` and purchases too
    (a real app's wait for the user is minutes; a test's must fail fast). A call that times
    out says what was still open: a paywall on screen, a request of the bridge unanswered."""
    return 10.0


@pytest.fixture
def fake_store() -> FakeStore:
    return FakeStore()


@pytest.fixture
def paywall_driver() -> PaywallDriver:
    """Closes a paywall no script acted on; fails the test when a script leaves its paywall on
    screen, an action is answered ``failed`` unexpectedly, or a script is never used."""
    return PaywallDriver(unscripted="close")


@pytest.fixture
def event_recorder() -> EventRecorder:
    return EventRecorder()


@pytest.fixture
def superwall(
    superwall_options: dict[str, Any], fake_store: FakeStore, paywall_driver: PaywallDriver,
    event_recorder: EventRecorder, superwall_timeout: float, request: pytest.FixtureRequest,
) -> Iterator[SyncSuperwall]:
    """A bridge of the test's own, configured with ``superwall_options`` and wired to the doubles.
    Its data directory is removed once it closed, unless the test is marked ``superwall_keeps_data``."""
    data_directory = superwall_options.get("dataDirectory")
    try:
        yield from _configured_bridge(superwall_options, fake_store, paywall_driver, event_recorder, superwall_timeout, request)
    finally:
        if data_directory and request.node.get_closest_marker("superwall_keeps_data") is None:
            shutil.rmtree(data_directory, ignore_errors=True)


def _configured_bridge(
    superwall_options: dict[str, Any], fake_store: FakeStore, paywall_driver: PaywallDriver,
    event_recorder: EventRecorder, superwall_timeout: float, request: pytest.FixtureRequest,
) -> Iterator[SyncSuperwall]:
    with SyncSuperwall.start(delegate=event_recorder, purchase_controller=fake_store,
                             paywall_presenter=paywall_driver, timeout=superwall_timeout,
                             interactive_timeout=superwall_timeout) as sw:
        fake_store.attach(sw.client)
        paywall_driver.attach(sw.client)
        if request.node.get_closest_marker("superwall_allows_unknown_placements") is None:
            sw.client.unknown_placements = "fail"
        callback_errors: list[str] = []

        def callback_failed(method: str, error: Exception) -> None:
            message = f"your callback for {method} raised {type(error).__name__}: {error}"
            callback_errors.append(message)
            sw.client.connection.fail_waiting(CallbackError(message))

        sw.client.connection.on_callback_error = callback_failed
        result = sw.configure("pk_test", options=superwall_options)
        if result.configuration_status != "configured":
            pytest.fail(f"the bridge could not be configured: {result.error}")
        sw.run(fake_store.report_status())
        yield sw
        if callback_errors:
            pytest.fail("; ".join(callback_errors))
        if paywall_driver.unraised_failures:
            pytest.fail("paywall scripts failed: " + "; ".join(paywall_driver.unraised_failures))
        if paywall_driver.unused_scripts:
            shown = [presentation.paywall.info.identifier for presentation in paywall_driver.shown]
            pytest.fail(f"paywall_driver.then({paywall_driver.unused_scripts[0]}) was never used: paywalls shown "
                        f"{shown or 'none'}; pass optional=True to then() for a script that may go unused")
