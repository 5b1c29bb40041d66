"""An app team's integration tests against the bridge, with pytest and the Python client.

docs/integration-testing.md walks through it. `make test` runs it:

    SUPERWALL_BRIDGE=path/to/superwall-bridge python -m pytest docs/examples/test_integration_example.py
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from superwall_bridge import PaywallPresentation, Superwall

CONFIG = Path(__file__).with_name("minimal-config.json")


class Screen:
    """The presenter: remembers what is shown, so the test can act on it."""

    def __init__(self) -> None:
        self.shown: asyncio.Queue[PaywallPresentation] = asyncio.Queue()

    async def present(self, presentation: PaywallPresentation) -> None:
        await self.shown.put(presentation)

    def dismiss(self, dismissal: Any) -> None:
        pass


def config_without_holdout(tmp_path: Path) -> str:
    """The example config with its holdout removed: a test decides which variant it tests."""
    config = json.loads(CONFIG.read_text())
    for rule in config["trigger_options"][0]["rules"]:
        rule["variants"] = [variant for variant in rule["variants"] if variant["variant_type"] == "TREATMENT"]
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config))
    return str(path)


def run(test: Any) -> None:
    asyncio.run(asyncio.wait_for(test, 60))


async def started(tmp_path: Path, screen: Screen) -> Superwall:
    sw = await Superwall.start(paywall_presenter=screen)
    await sw.configure("pk_integration", options={
        "configSource": {"type": "file", "path": config_without_holdout(tmp_path)},
        # A data directory per test: every test is a fresh install.
        "dataDirectory": str(tmp_path / "data"),
        # Purchases are simulated and entitlements granted without a store.
        "testModeBehavior": "always",
        # Time moves only when the test says.
        "clock": "manual",
    })
    return sw


def test_a_user_under_the_limit_exports_without_a_paywall(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with await started(tmp_path, Screen()) as sw:
            await sw.set_user_attributes({"exports_this_month": 1})
            result = await sw.register("export_pdf")
            assert result.outcome == "skipped" and result.feature_granted

    run(scenario())


def test_the_fourth_export_shows_the_upsell_and_buying_unlocks_pro(tmp_path: Path) -> None:
    async def scenario() -> None:
        screen = Screen()
        async with await started(tmp_path, screen) as sw:
            await sw.set_user_attributes({"exports_this_month": 3})
            # Why it will show, before it does: the rule, its values, the variant.
            explanation = await sw.explain_placement("export_pdf")
            assert explanation.outcome == "paywall"
            registering = asyncio.create_task(sw.register("export_pdf"))
            shown = await asyncio.wait_for(screen.shown.get(), 10)
            assert shown.paywall.info.identifier == "pro-upsell"
            await sw.paywall_action(shown.session_id, {"type": "purchase", "productId": "com.example.pro.monthly"})
            result = await registering
            assert result.feature_granted
            assert [entitlement.id for entitlement in (await sw.entitlements()).active] == ["pro"]

    run(scenario())


def test_the_upsell_shows_at_most_once_a_day(tmp_path: Path) -> None:
    async def scenario() -> None:
        screen = Screen()
        async with await started(tmp_path, screen) as sw:
            await sw.set_user_attributes({"exports_this_month": 5})
            for expected in ("dismissed", "skipped"):
                registering = asyncio.create_task(sw.register("export_pdf"))
                if expected == "dismissed":
                    shown = await asyncio.wait_for(screen.shown.get(), 10)
                    await sw.paywall_action(shown.session_id, {"type": "close"})
                assert (await registering).outcome == expected
            # Past a day later, the occurrence limit allows it again: no sleeping.
            await sw.advance_clock(24 * 3600 + 60)
            registering = asyncio.create_task(sw.register("export_pdf"))
            shown = await asyncio.wait_for(screen.shown.get(), 10)
            await sw.paywall_action(shown.session_id, {"type": "close"})
            assert (await registering).outcome == "dismissed"

    run(scenario())
