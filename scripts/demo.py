#!/usr/bin/env python3
"""The superwall-bridge demo: a Python app drives the bridge on its embedded demo config.

Usage: demo.py [--verbose] PATH_TO_BINARY

"Pocket Trainer" is a fictional fitness app whose campaigns are built into the bridge. The
app here is a script using the Python client (clients/python): it configures, identifies a
runner, sets attributes, meets a placement that skips, finds a user in a holdout, shows a
gated paywall whose promo-code field asks the app through a custom callback, buys through its
own purchase controller, gets the feature, reads entitlements and customer info, restores,
and follows deep links: one out of a paywall, one into the summer-sale campaign, whose paywall
is rendered by the stand-in page in headless Chromium (the page runtime: the bridge gives the
page its prices and handles what it posts; a screenshot is written under .build/browser).
--verbose prints the JSON-RPC traffic as well.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "clients" / "python"))
sys.path.insert(0, str(ROOT / "Tests" / "Browser"))

from superwall_bridge import (  # noqa: E402
    CustomCallback, CustomCallbackResult, IntroductoryOffer, PaywallDismissal, PaywallInfo, PaywallPresentation,
    PaywallResult, PresentationHandler, Product, PurchaseResult, RestorationResult, SkipReason, StoreDetails, StorePeriod,
    StoreTransaction, SubscriptionStatus, Superwall, SuperwallDelegate, SuperwallEvent,
)

DIM, BOLD, RESET = ("\033[2m", "\033[1m", "\033[0m") if sys.stdout.isatty() else ("", "", "")


def say(text: str) -> None:
    print(f"   {text}")


def chapter(title: str, delegate: Delegate | None = None) -> None:
    if delegate is not None:
        delegate.print_events()
    print(f"\n{BOLD}== {title}{RESET}")


class Screen:
    """The app's paywall screen: it shows what the bridge asks and lets the script act as the
    user. With a browser, it also renders the paywall's page there."""

    def __init__(self) -> None:
        self.shown: asyncio.Queue[PaywallPresentation] = asyncio.Queue()
        self.browser: Any = None

    async def present(self, presentation: PaywallPresentation) -> None:
        info = presentation.paywall.info
        products = ", ".join(product.id for product in presentation.paywall.products)
        say(f"[screen] showing paywall {info.identifier!r} ({info.feature_gating_behavior}), products: {products}")
        if self.browser is not None:
            await self.browser.present(presentation)
        await self.shown.put(presentation)

    async def dismiss(self, dismissal: PaywallDismissal) -> None:
        say(f"[screen] paywall taken down: {dismissal.result.type} ({dismissal.close_reason})")
        if self.browser is not None:
            await self.browser.dismiss(dismissal)

    async def page_event(self, session_id: str, accept64: str) -> None:
        if self.browser is not None:
            await self.browser.page_event(session_id, accept64)


async def open_browser(sw: Superwall) -> Any:
    """Headless Chromium as the paywall's web view, or None (with why) when it cannot start."""
    try:
        from browser_host import BrowserPaywallHost, BrowserUnavailable
    except ImportError as error:
        say(f"(no browser: {error}; run `make demo`, which installs selenium)")
        return None
    host = BrowserPaywallHost()
    try:
        host.open_browser()
    except BrowserUnavailable as error:
        say(f"(no browser: {error})")
        return None
    host.superwall = sw
    return host


class Store:
    """The app's purchase controller: its own store code, here a pretend store that always succeeds."""

    def __init__(self) -> None:
        self.superwall: Superwall | None = None
        self.receipts: list[str] = []

    async def purchase(self, product: Product, paywall_info: PaywallInfo | None) -> PurchaseResult:
        assert self.superwall is not None
        price = product.store_details.localized_price if product.store_details else "?"
        say(f"[store] charging {price} for {product.id}")
        self.receipts.append(product.id)
        # As SuperwallKit asks of a controller: set the status first, then answer.
        await self.superwall.set_subscription_status(SubscriptionStatus.active(*(e.id for e in product.entitlements)))
        return PurchaseResult.purchased(StoreTransaction(transaction_id=f"pt-{len(self.receipts):04d}"))

    async def restore_purchases(self) -> RestorationResult:
        say(f"[store] restoring: {len(self.receipts)} receipt(s) on this device")
        return RestorationResult.restored() if self.receipts else RestorationResult.failed("no purchases to restore")


class Delegate(SuperwallDelegate):
    """Prints what the SDK tells the app; the events of each chapter on one line at its end."""

    def __init__(self) -> None:
        self.events: list[str] = []

    def handle_superwall_event(self, event: SuperwallEvent) -> None:
        self.events.append(event.name)

    def print_events(self) -> None:
        if self.events:
            print(f"   {DIM}events: {', '.join(self.events)}{RESET}")
            self.events.clear()

    def subscription_status_did_change(self, old: SubscriptionStatus, new: SubscriptionStatus) -> None:
        say(f"[delegate] subscription status {old.type} -> {new.type}")

    def paywall_will_open_deep_link(self, url: str) -> None:
        say(f"[delegate] the paywall opens the deep link {url}")

    def handle_superwall_deep_link(self, url: str, path_components: list[str], query_parameters: dict[str, object]) -> None:
        say(f"[delegate] Superwall link for the app: {url} (path {path_components})")


class PromoCodeHandler(PresentationHandler):
    """One register's handler: answers the paywall's promo-code check."""

    def on_present(self, info: PaywallInfo) -> None:
        say(f"[handler] presented {info.identifier}")

    def on_custom_callback(self, callback: CustomCallback) -> CustomCallbackResult:
        code = callback.variables.get("code")
        valid = code == "SUMMER"
        say(f"[handler] custom callback {callback.name}({code!r}) -> {'valid' if valid else 'invalid'}")
        return CustomCallbackResult.success({"valid": valid, "discountPercent": 20 if valid else 0})

    def on_dismiss(self, info: PaywallInfo, result: PaywallResult) -> None:
        say(f"[handler] dismissed with {result.type}")


async def main(binary: str, verbose: bool) -> int:
    started = time.monotonic()
    data_directory = tempfile.mkdtemp(prefix="superwall-demo-")
    screen, store, delegate = Screen(), Store(), Delegate()

    def show_traffic(direction: str, text: str) -> None:
        print(f"   {DIM}{'->' if direction == 'out' else '<-'} {text[:400]}{RESET}")

    chapter("start the bridge and configure it on the embedded demo app")
    sw = await Superwall.start(binary, delegate=delegate, purchase_controller=store, paywall_presenter=screen,
                               observer=show_traffic if verbose else None)
    store.superwall = sw
    say(f"bridge {sw.server.server['version']}, following SuperwallKit {sw.server.sdk_version}, protocol {sw.server.protocol_version}")
    configured = await sw.configure(
        "pk_demo_pocket_trainer", options={"configSource": {"type": "embedded"}, "dataDirectory": data_directory},
        device={"platform": "iOS", "appVersion": "2.4.0", "osVersion": "18.1", "deviceModel": "iPhone16,2", "locale": "en_US"},
        store_products=[StoreDetails("com.pockettrainer.pro.monthly", price=9.99, currency_code="USD", localized_price="$9.99",
                                     period=StorePeriod("month")),
                        StoreDetails("com.pockettrainer.coach.monthly", price=19.99, currency_code="USD", localized_price="$19.99",
                                     period=StorePeriod("month")),
                        StoreDetails("com.pockettrainer.pro.annual", price=59.99, currency_code="USD", period=StorePeriod("year"),
                                     price_locale="en_US",
                                     introductory_offer=IntroductoryOffer(StorePeriod("day", 7), payment_mode="freeTrial"))])
    say(f"configuration {configured.configuration_status}; state kept in {data_directory}")
    await sw.set_subscription_status(SubscriptionStatus.inactive())

    chapter("a holdout: the pro-workouts campaign keeps 20% of users as a control group", delegate)
    for attempt in range(1, 41):
        await sw.identify(f"visitor_{attempt}")
        probe = await sw.presentation_result("start_workout", params={"workout_tier": "pro"})
        if probe.type == "holdout":
            result = await sw.register("start_workout", params={"workout_tier": "pro"}, has_feature=True)
            say(f"visitor_{attempt} is in the holdout of experiment {result.skip_reason.experiment.id if result.skip_reason and result.skip_reason.experiment else '?'}: "
                f"register {result.outcome}, featureGranted {result.feature_granted}")
            break
        say(f"visitor_{attempt} sees the paywall (treatment)")
    else:
        say("no visitor landed in the holdout this time (each has a 20% chance)")
    await sw.reset()

    chapter("identify the runner and set attributes", delegate)
    await sw.identify("runner_042")
    attributes = await sw.set_user_attributes({"plan": "free", "workouts_completed": 4, "email": "runner@example.com"})
    user = await sw.user()
    say(f"user {user.user_id} (logged in: {user.is_logged_in}), attributes: plan={attributes['plan']}, workouts_completed={attributes['workouts_completed']}")

    chapter("a placement whose campaign has no audience skips, and the feature runs", delegate)
    result = await sw.register("workout_shared", has_feature=True)
    say(f"register workout_shared: {result.outcome} ({result.skip_reason.type if result.skip_reason else '-'}), featureGranted {result.feature_granted}")

    chapter("the daily limit: a gated paywall, a promo code checked by the app, a purchase", delegate)
    await sw.set_user_attributes({"workouts_completed": 5})
    registering = asyncio.create_task(sw.register("daily_limit_reached", has_feature=True, handler=PromoCodeHandler()))
    shown = await asyncio.wait_for(screen.shown.get(), 10)
    answer = await sw.paywall_action(shown.session_id, {"type": "requestCallback", "name": "validate_promo_code",
                                                        "variables": {"code": "SUMMER"}})
    say(f"the paywall hears back: {answer}")
    bought = await sw.paywall_action(shown.session_id, {"type": "purchase", "productId": "com.pockettrainer.pro.monthly"})
    say(f"purchase from the paywall: {bought['result']['type']}")
    result = await registering
    say(f"register daily_limit_reached: {result.outcome} with {result.paywall_result.type if result.paywall_result else '-'}, "
        f"featureGranted {BOLD}{result.feature_granted}{RESET}")

    chapter("entitlements and customer info", delegate)
    entitlements = await sw.entitlements()
    say("active: " + ", ".join(e.id for e in entitlements.active) + "; inactive: " + ", ".join(e.id for e in entitlements.inactive))
    info = await sw.customer_info()
    for transaction in info.subscriptions:
        say(f"subscription {transaction.product_id}, transaction {transaction.transaction_id}, active {transaction.is_active}")

    chapter("a restore through the purchase controller", delegate)
    restored = await sw.restore_purchases()
    say(f"restore: {restored.type}")

    chapter("deep links: out of a paywall, and into the summer sale", delegate)
    registering = asyncio.create_task(sw.register("open_coach_chat", has_feature=True))
    shown = await asyncio.wait_for(screen.shown.get(), 10)
    await sw.paywall_action(shown.session_id, {"type": "openDeepLink", "url": "pockettrainer://open?path=promo&offer=summer"})
    result = await registering
    say(f"register open_coach_chat: {result.outcome}, featureGranted {result.feature_granted} (the coach upsell is gated)")
    # The app routes the link it was asked to open back into Superwall, as it would any link it is opened with.
    # This paywall's page is rendered in a real browser: the bridge gives it its prices and takes what it posts.
    screen.browser = await open_browser(sw)
    handled = await sw.handle_deep_link("pockettrainer://open?path=promo&offer=summer")
    shown = await asyncio.wait_for(screen.shown.get(), 10)
    say(f"handleDeepLink: handled {handled}; its deepLink_open campaign shows {shown.paywall.info.identifier!r}")
    if screen.browser is not None:
        await render_and_close(screen.browser)
        screen.browser.close_browser()
        screen.browser = None
    else:
        await sw.paywall_action(shown.session_id, {"type": "close"})
    universal = await sw.handle_deep_link("https://pockettrainer.superwall.app/app-link/workouts/today")
    say(f"a Superwall universal link: handled {universal}")

    chapter("shut down", delegate)
    status = await sw.close()
    shutil.rmtree(data_directory, ignore_errors=True)
    say(f"bridge exited with status {status} after {time.monotonic() - started:.2f} s")
    return 0 if status == 0 else 1


async def render_and_close(browser: Any) -> None:
    """Waits for the page to render its products, takes a screenshot, and closes the paywall
    with the page's own close button."""
    deadline = time.monotonic() + 20
    while "free trial" not in await browser.text():
        if time.monotonic() > deadline:
            say("(the page did not render its products within 20 s)")
            return
        await asyncio.sleep(0.05)
    lines = [line for line in (await browser.text()).splitlines() if "$" in line]
    say(f"[browser] the stand-in page renders: {' | '.join(lines)}")
    say(f"[browser] screenshot: {await browser.screenshot(ROOT / '.build' / 'browser' / 'demo-summer-sale.png')}")
    await browser.click("close")
    deadline = time.monotonic() + 10
    while not browser.dismissals and time.monotonic() < deadline:
        await asyncio.sleep(0.05)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Drive superwall-bridge through the demo story.")
    parser.add_argument("--verbose", action="store_true", help="print the JSON-RPC traffic too")
    parser.add_argument("binary", help="the superwall-bridge binary")
    arguments = parser.parse_args()
    sys.exit(asyncio.run(main(arguments.binary, arguments.verbose)))
