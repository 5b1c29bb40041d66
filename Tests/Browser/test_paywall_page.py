"""The paywall page runtime in a real browser: the stand-in page in headless Chromium, hosted
by a web view and a message forwarder (browser_host.py), driven by the Python client against
the real binary.

1. ``register`` presents the paywall and the page says ``ping``;
2. the page shows "$59.99" and "7-day free trial" for the product the host's store described;
3. a click on purchase goes through the client's purchase controller and the page is told
   ``transaction_complete``;
4. the paywall closes and ``register`` answers with the feature granted.

A screenshot of step 2 is written to .build/browser/paywall.png. If the browser cannot start,
the test fails and says why: it never skips.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

from browser_host import BrowserPaywallHost
from paywall_story import ANNUAL, StoreController, demo_config_with_unlock_placement

from superwall_bridge import (
    IntroductoryOffer, StoreDetails, StorePeriod, SubscriptionStatus, Superwall,
)

ROOT = Path(__file__).resolve().parents[2]
BRIDGE = os.environ.get("SUPERWALL_BRIDGE", str(ROOT / ".build" / "debug" / "superwall-bridge"))
SCREENSHOT = ROOT / ".build" / "browser" / "paywall.png"


async def wait_for(condition: Any, what: str, timeout: float = 20.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not await condition():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.05)


async def drive() -> None:
    host = BrowserPaywallHost()
    host.open_browser()
    controller = StoreController()
    folder = Path(tempfile.mkdtemp(prefix="browser-"))
    config = str(demo_config_with_unlock_placement(BRIDGE, folder / "config.json"))
    try:
        async with Superwall.start(BRIDGE, paywall_presenter=host, purchase_controller=controller) as sw:
            host.superwall = controller.superwall = sw
            await sw.configure(
                "pk_browser", options={"configSource": {"type": "file", "path": config}, "dataDirectory": str(folder / "data")},
                store_products=[StoreDetails(
                    product_identifier=ANNUAL, price=59.99, currency_code="USD", period=StorePeriod(unit="year"), price_locale="en_US",
                    introductory_offer=IntroductoryOffer(period=StorePeriod(unit="day", count=7), payment_mode="freeTrial"))])
            await sw.set_subscription_status(SubscriptionStatus.inactive())
            register = asyncio.create_task(sw.register("unlock_pro", has_feature=True))

            # 1. Presented, and the page said ping.
            await wait_for(lambda: _true(host.load_answer is not None), "paywall/present and the page's load")
            assert host.load_answer == {"action": "wait"}, host.load_answer
            await wait_for(lambda: _received_has(host, "template_variables"), "the TEMPLATES after the page's ping")
            assert any('"ping"' in message for message in host.forwarded)

            # 2. The page renders the store's price and the trial.
            await wait_for(lambda: _text_has(host, "7-day free trial"), "the trial text on the page")
            text = await host.text()
            assert "$59.99" in text, text
            assert "7-day free trial" in text, text
            print(f"screenshot: {await host.screenshot(SCREENSHOT)}")

            # 3. Purchase through the controller; the page hears transaction_complete.
            await host.click("purchase")
            await wait_for(lambda: _true(bool(host.dismissals)), "the paywall to close after the purchase")
            assert controller.purchased == [ANNUAL]
            received = [event["event_name"] for event in await host.run_script("return window.__received;")]
            assert "transaction_start" in received and "transaction_complete" in received, received
            assert received.index("transaction_start") < received.index("transaction_complete")

            # 4. Closed, and the feature granted.
            result = await asyncio.wait_for(register, 20)
            assert result.feature_granted, result
            assert host.dismissals[0].result.type == "purchased", host.dismissals[0]
            assert ("loading_state", ("loadingPurchase",)) in host.effects
    finally:
        host.close_browser()
        shutil.rmtree(folder, ignore_errors=True)


async def _true(value: bool) -> bool:
    return value


async def _received_has(host: BrowserPaywallHost, name: str) -> bool:
    events = await host.run_script("return window.__received || [];")
    return any(event.get("event_name") == name for event in events)


async def _text_has(host: BrowserPaywallHost, text: str) -> bool:
    return text in await host.text()


def test_a_paywall_page_renders_the_store_prices_and_a_purchase_completes_in_headless_chromium() -> None:
    asyncio.run(drive())
    assert SCREENSHOT.exists()

