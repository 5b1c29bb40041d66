"""A blocking facade over :class:`~superwall_bridge.Superwall`, for scripts and REPLs.

The asyncio client runs on an event loop in a background thread; each method here waits for
its coroutine. Callbacks (delegate, purchase controller, handlers) run on that thread.
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any, Coroutine, TypeVar

from .client import Superwall

T = TypeVar("T")

#: How much longer than a call's own timeout the facade waits before giving up on the loop.
_GRACE = 5.0


class SyncSuperwall:
    """``SyncSuperwall.start(...)`` takes the arguments of :meth:`Superwall.launch`; every
    method of :class:`Superwall` is available here without ``await``.

    >>> with SyncSuperwall.start() as sw:  # doctest: +SKIP
    ...     sw.configure("pk_demo", options={"configSource": {"type": "embedded"}})
    ...     result = sw.register("onboarding_complete")
    """

    def __init__(self, loop: asyncio.AbstractEventLoop, thread: threading.Thread, client: Superwall) -> None:
        self._loop = loop
        self._thread = thread
        self.client = client

    @classmethod
    def start(cls, *args: Any, **kwargs: Any) -> SyncSuperwall:
        loop = asyncio.new_event_loop()
        thread = threading.Thread(target=loop.run_forever, name="superwall-bridge loop", daemon=True)
        thread.start()
        try:
            client = asyncio.run_coroutine_threadsafe(Superwall.launch(*args, **kwargs), loop).result()
        except BaseException:
            loop.call_soon_threadsafe(loop.stop)
            thread.join()
            raise
        return cls(loop, thread, client)

    @property
    def loop(self) -> asyncio.AbstractEventLoop:
        """The event loop the client runs on, for a host whose own thread must not block
        (a GUI's): ``asyncio.run_coroutine_threadsafe(work, sw.loop)``."""
        return self._loop

    def run(self, coroutine: Coroutine[Any, Any, T], timeout: float | None = None) -> T:
        """Runs one coroutine of the client on its loop and waits for it."""
        limit = (timeout if timeout is not None else max(self.client.timeout, 900.0)) + _GRACE
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop).result(limit)

    def __getattr__(self, name: str) -> Any:
        attribute = getattr(self.client, name)
        if not callable(attribute) or not asyncio.iscoroutinefunction(attribute):
            return attribute

        def blocking(*args: Any, **kwargs: Any) -> Any:
            return self.run(attribute(*args, **kwargs))

        blocking.__name__ = name
        blocking.__doc__ = attribute.__doc__
        return blocking

    def close(self) -> int | None:
        """Shuts the bridge down, waits for it to exit, and stops the loop. Returns its exit status."""
        try:
            return self.run(self.client.close(), timeout=10)
        finally:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(timeout=5)

    def __enter__(self) -> SyncSuperwall:
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()


