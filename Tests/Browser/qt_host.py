"""A second web view host of the paywall page: Qt WebEngine (Debian's python3-pyqt5.qtwebengine),
with the shim docs/paywall-page-messages.md gives for a web view that is not WebKit.

Run by Debian's own Python under Xvfb (``xvfb-run -a python3 qt_host.py``), with the client
on ``PYTHONPATH`` and ``SUPERWALL_BRIDGE`` naming the binary. Qt owns the main thread; the
client runs on an event loop in another (``SyncSuperwall``), and its presenter hands each piece
of web view work to the main thread, where a timer runs it. It shows the stand-in page for the
gated paywall, waits until the page renders the store's price, presses the page's purchase
button, and prints what happened as JSON on its last line; it exits non-zero if a step failed.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import os
import queue
import sys
import tempfile
from pathlib import Path
from typing import Any, Callable

from PyQt5.QtCore import QTimer, QUrl
from PyQt5.QtWebEngineWidgets import QWebEnginePage, QWebEngineScript, QWebEngineView
from PyQt5.QtWidgets import QApplication

sys.path.insert(0, str(Path(__file__).resolve().parent))
from paywall_story import ANNUAL, StoreController, demo_config_with_unlock_placement  # noqa: E402
from webview_shim import OUTBOX, docs_shim  # noqa: E402

from superwall_bridge import (  # noqa: E402
    PaywallDismissal, PaywallPresentation, StoreDetails, StorePeriod, SubscriptionStatus, Superwall, SyncSuperwall,
)

STANDIN_PAGE = Path(__file__).with_name("standin-paywall.html")
#: How long any step may take on a busy machine.
STEP_TIMEOUT = 60.0


class MainThread:
    """Work for Qt's thread, run by a timer there; each call answers a future."""

    def __init__(self) -> None:
        self._work: queue.Queue[tuple[Callable[[concurrent.futures.Future[Any]], None], concurrent.futures.Future[Any]]] = queue.Queue()
        self._timer = QTimer()
        self._timer.timeout.connect(self._run)
        self._timer.start(10)

    def _run(self) -> None:
        while not self._work.empty():
            work, future = self._work.get_nowait()
            try:
                work(future)
            except Exception as error:  # noqa: BLE001 - handed back to the caller
                future.set_exception(error)

    def call(self, work: Callable[[concurrent.futures.Future[Any]], None]) -> concurrent.futures.Future[Any]:
        """``work`` runs on Qt's thread and settles the future itself (at once or from a callback)."""
        future: concurrent.futures.Future[Any] = concurrent.futures.Future()
        self._work.put((work, future))
        return future


class QtPaywallHost:
    """The paywall presenter: the page in a QWebEngineView, its messages forwarded."""

    def __init__(self, main: MainThread, view: QWebEngineView) -> None:
        self.main, self.view = main, view
        self.superwall: Superwall | None = None
        self.session_id: str | None = None
        self.dismissals: list[PaywallDismissal] = []
        self.forwarded: list[str] = []
        self._pump: asyncio.Task[None] | None = None

    async def on_qt(self, work: Callable[[concurrent.futures.Future[Any]], None]) -> Any:
        return await asyncio.wait_for(asyncio.wrap_future(self.main.call(work)), STEP_TIMEOUT)

    async def run_script(self, script: str) -> Any:
        def run(future: concurrent.futures.Future[Any]) -> None:
            self.view.page().runJavaScript(script, future.set_result)
        return await self.on_qt(run)

    async def present(self, presentation: PaywallPresentation) -> None:
        assert self.superwall is not None
        page = presentation.paywall.page
        self.session_id = presentation.session_id
        start = docs_shim() + (page.document_start_script if page else "")

        def load(future: concurrent.futures.Future[Any]) -> None:
            script = QWebEngineScript()
            script.setName("superwall")
            script.setSourceCode(start)
            script.setInjectionPoint(QWebEngineScript.DocumentCreation)
            script.setWorldId(QWebEngineScript.MainWorld)
            scripts = self.view.page().scripts()
            scripts.clear()
            scripts.insert(script)

            def finished(ok: bool) -> None:
                self.view.loadFinished.disconnect(finished)
                future.set_result(ok)

            self.view.loadFinished.connect(finished)
            self.view.load(QUrl.fromLocalFile(str(STANDIN_PAGE)))

        loaded = await self.on_qt(load)
        await self.superwall.page_load(presentation.session_id, "finished" if loaded else "failed", http_status=200)
        self._pump = asyncio.create_task(self._forward_messages(presentation.session_id))

    async def dismiss(self, dismissal: PaywallDismissal) -> None:
        self.dismissals.append(dismissal)
        self.session_id = None
        if self._pump is not None:
            self._pump.cancel()

    async def page_event(self, session_id: str, accept64: str) -> None:
        if session_id == self.session_id:
            await self.run_script(f"window.paywall.accept64({json.dumps(accept64)});")

    async def _forward_messages(self, session_id: str) -> None:
        assert self.superwall is not None
        while self.session_id == session_id:
            posted = await self.run_script(f"{OUTBOX} ? {OUTBOX}.splice(0) : []")
            for message in posted or []:
                self.forwarded.append(message)
                await self.superwall.page_message(session_id, message)
            await asyncio.sleep(0.03)


async def until(condition: Callable[[], Any], what: str) -> None:
    deadline = asyncio.get_running_loop().time() + STEP_TIMEOUT
    while not await condition():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.05)


async def scenario(host: QtPaywallHost, controller: StoreController) -> dict[str, Any]:
    """Buys through the page's own button; answers what each step saw."""
    assert host.superwall is not None
    sw = host.superwall
    register = asyncio.create_task(sw.register("unlock_pro", has_feature=True))

    async def page_text() -> str:
        return str(await host.run_script("document.body.innerText"))

    async def priced() -> bool:
        return "$59.99" in await page_text()

    await until(priced, "the page to render the store's price")
    text = await page_text()

    async def enabled() -> bool:
        return bool(await host.run_script("!document.getElementById('purchase').disabled"))

    await until(enabled, "the purchase button")
    await host.run_script("document.getElementById('purchase').click()")
    result = await asyncio.wait_for(register, STEP_TIMEOUT)
    return {
        "rendered": "$59.99" in text, "purchased": controller.purchased, "featureGranted": result.feature_granted,
        "dismissal": host.dismissals[0].result.type if host.dismissals else None,
        "pinged": any('"ping"' in message for message in host.forwarded),
    }


def main() -> int:
    bridge = os.environ["SUPERWALL_BRIDGE"]
    with tempfile.TemporaryDirectory(prefix="qt-host-") as folder:
        # Chromium's sandbox refuses root (CI runs as root); Qt's runtime files stay in the folder.
        os.environ.setdefault("QTWEBENGINE_DISABLE_SANDBOX", "1")
        os.environ["XDG_RUNTIME_DIR"] = folder
        return run(bridge, Path(folder))


def run(bridge: str, folder: Path) -> int:
    app = QApplication(sys.argv[:1] + ["--disable-gpu"])
    view = QWebEngineView()
    view.setPage(QWebEnginePage(view))
    view.resize(480, 860)
    view.show()
    main_thread = MainThread()
    host, controller = QtPaywallHost(main_thread, view), StoreController()
    outcome: dict[str, Any] = {}
    config = demo_config_with_unlock_placement(bridge, folder / "config.json")
    sw = SyncSuperwall.start(bridge, paywall_presenter=host, purchase_controller=controller)
    host.superwall = controller.superwall = sw.client
    sw.configure("pk_qt", options={"configSource": {"type": "file", "path": str(config)},
                                   "dataDirectory": str(folder / "data")},
                 store_products=[StoreDetails(ANNUAL, price=59.99, currency_code="USD", period=StorePeriod("year"),
                                              price_locale="en_US")])
    sw.set_subscription_status(SubscriptionStatus.inactive())
    running = asyncio.run_coroutine_threadsafe(scenario(host, controller), sw.loop)

    def finish(future: concurrent.futures.Future[dict[str, Any]]) -> None:
        try:
            outcome.update(future.result())
        except Exception as error:  # noqa: BLE001 - reported on the last line
            outcome["error"] = f"{type(error).__name__}: {error}"
        main_thread.call(lambda _: app.quit())

    running.add_done_callback(finish)
    # Each step is bounded; this bounds the whole should the event loop itself stall.
    QTimer.singleShot(int(STEP_TIMEOUT * 4 * 1000), app.quit)
    app.exec_()
    if not running.done():
        outcome["error"] = f"the scenario had not finished after {STEP_TIMEOUT * 4:.0f} s"
    sw.close()
    print(json.dumps(outcome))
    return 0 if outcome.get("featureGranted") and outcome.get("purchased") == [ANNUAL] else 1


if __name__ == "__main__":
    sys.exit(main())
