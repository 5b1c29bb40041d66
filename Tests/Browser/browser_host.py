"""A paywall host made of headless Chromium and a message forwarder: all a wrapper needs on
top of the bridge. Used by the browser test and by ``make demo``.

It loads the stand-in page (``standin-paywall.html``) for every paywall, since the demo's
paywall URLs do not exist; everything else is what a real host does with ``paywall.page``:
the document-start script before the page's own, each posted message forwarded to
``paywall/pageMessage``, each ``paywall/pageEvent`` evaluated into the page in order, the
load reported to ``paywall/pageLoad``.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Callable, TypeVar

from webview_shim import TAKE_OUTBOX, docs_shim

from superwall_bridge import PaywallDismissal, PaywallPresentation, Superwall

T = TypeVar("T")

STANDIN_PAGE = Path(__file__).with_name("standin-paywall.html")

#: Chromium has no WebKit message handlers: the docs' shim keeps what the page posts until
#: the host collects it, in order.
MESSAGE_HANDLER_SHIM = docs_shim()


class BrowserUnavailable(RuntimeError):
    """Chromium or its driver could not be started."""


class BrowserPaywallHost:
    """Shows the bridge's paywalls in headless Chromium."""

    def __init__(self) -> None:
        self.superwall: Superwall | None = None
        self.session_id: str | None = None
        self.presentation: PaywallPresentation | None = None
        self.dismissals: list[PaywallDismissal] = []
        self.effects: list[tuple[str, tuple[Any, ...]]] = []
        self.forwarded: list[str] = []
        self.load_answer: dict[str, Any] | None = None
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="chromium")
        self._pump: asyncio.Task[None] | None = None
        self._driver: Any = None
        self._browser_temp: str | None = None

    # MARK: The browser

    def open_browser(self) -> None:
        chromium, chromedriver = shutil.which("chromium"), shutil.which("chromedriver")
        if chromium is None or chromedriver is None:
            raise BrowserUnavailable("Debian's chromium and chromium-driver are needed (apt-get install -y chromium chromium-driver); "
                                     f"found chromium at {chromium}, chromedriver at {chromedriver}.")
        try:
            from selenium import webdriver
            from selenium.webdriver.chrome.service import Service
        except ImportError as error:
            raise BrowserUnavailable(f"selenium is needed (pip install selenium): {error}") from error
        options = webdriver.ChromeOptions()
        options.binary_location = chromium
        for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--window-size=480,860",
                         "--allow-file-access-from-files"):
            options.add_argument(argument)
        # Chromium leaves its singleton socket's folder in the temp folder when the driver
        # stops it; it gets a temp folder of its own, removed with the browser. In /tmp itself:
        # a socket's path must fit in 108 bytes, and a test's TMPDIR can be deep.
        self._browser_temp = tempfile.mkdtemp(prefix="chromium-", dir="/tmp")
        try:
            self._driver = webdriver.Chrome(options=options, service=Service(
                executable_path=chromedriver, env={**os.environ, "TMPDIR": self._browser_temp}))
        except Exception as error:
            shutil.rmtree(self._browser_temp, ignore_errors=True)
            self._browser_temp = None
            raise BrowserUnavailable(f"headless Chromium did not start: {error}") from error

    def close_browser(self) -> None:
        if self._driver is not None:
            self._driver.quit()
            self._driver = None
        if self._browser_temp is not None:
            shutil.rmtree(self._browser_temp, ignore_errors=True)
            self._browser_temp = None
        self._executor.shutdown(wait=False)

    async def _in_browser(self, work: Callable[[], T]) -> T:
        """Runs `work` on the browser's one thread: driver calls happen in the order asked."""
        return await asyncio.get_running_loop().run_in_executor(self._executor, work)

    async def run_script(self, script: str, *arguments: Any) -> Any:
        return await self._in_browser(lambda: self._driver.execute_script(script, *arguments))

    async def screenshot(self, path: Path) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        await self._in_browser(lambda: self._driver.save_screenshot(str(path)))
        return path

    async def click(self, element_id: str) -> None:
        from selenium.webdriver.common.by import By
        await self._in_browser(lambda: self._driver.find_element(By.ID, element_id).click())

    async def text(self) -> str:
        return str(await self.run_script("return document.body.innerText"))

    # MARK: The paywall presenter

    async def present(self, presentation: PaywallPresentation) -> None:
        assert self.superwall is not None, "attach the host to a Superwall first"
        page = presentation.paywall.page
        self.session_id, self.presentation = presentation.session_id, presentation
        start_script = MESSAGE_HANDLER_SHIM + (page.document_start_script if page else "")

        def load() -> None:
            self._driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": start_script})
            self._driver.get(STANDIN_PAGE.as_uri())
            if page and page.document_end_style:
                self._driver.execute_script(
                    "var style = document.createElement('style'); style.textContent = arguments[0]; document.head.appendChild(style);",
                    page.document_end_style)

        await self._in_browser(load)
        self.load_answer = await self.superwall.page_load(presentation.session_id, "finished", http_status=200)
        self._pump = asyncio.create_task(self._forward_messages(presentation.session_id))

    async def dismiss(self, dismissal: PaywallDismissal) -> None:
        self.dismissals.append(dismissal)
        if self._pump is not None:
            self._pump.cancel()
        self.session_id = None

    async def page_event(self, session_id: str, accept64: str) -> None:
        if session_id == self.session_id:
            await self.run_script("window.paywall.accept64(arguments[0]);", accept64)

    async def _forward_messages(self, session_id: str) -> None:
        """Collects what the page posted and forwards it, in order, until the paywall goes."""
        assert self.superwall is not None
        while self.session_id == session_id:
            posted = await self.run_script(TAKE_OUTBOX)
            for message in posted or []:
                self.forwarded.append(message)
                await self.superwall.page_message(session_id, message)
            await asyncio.sleep(0.03)

    # The page's effects: a real host opens links, prompts and so on; this one records them.

    def open_url(self, session_id: str, url: str, mode: str) -> None:
        self.effects.append(("open_url", (url, mode)))

    def haptic(self, session_id: str, kind: str) -> None:
        self.effects.append(("haptic", (kind,)))

    def loading_state(self, session_id: str, state: str) -> None:
        self.effects.append(("loading_state", (state,)))

    def request_permission(self, session_id: str, permission: str) -> str:
        self.effects.append(("request_permission", (permission,)))
        return "denied"
