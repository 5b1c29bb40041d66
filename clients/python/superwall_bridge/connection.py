"""JSON-RPC 2.0 with a bridge: a process's stdin and stdout, or the bridge in this process.

:class:`Connection` owns one bridge, through a transport (a process's framed streams, or
``libsuperwall_bridge.so``). It matches replies to requests, answers the bridge's own requests
through a callback, and delivers notifications in the order they arrived. Every call has a
timeout, and a bridge that goes away fails every waiting call with
:class:`~superwall_bridge.errors.BridgeClosedError`.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import itertools
import json
import logging
import os
from typing import Any, Awaitable, Callable, Literal, Mapping, Sequence

from ._locate import require_proc
from ._transports import Framing, LibraryTransport, MessageTooLargeError, ProcessTransport, Transport, find_library
from .errors import BridgeClosedError, BridgeError, BridgeTimeoutError, ProtocolViolationError, error_from_wire

__all__ = ["Connection", "Framing", "RemoteError", "find_library"]
#: Answers one of the bridge's requests: ``(method, params, id)`` to its result.
RequestHandler = Callable[[str, Any, Any], Awaitable[Any]]
NotificationHandler = Callable[[str, Any], Awaitable[None]]
#: Sees every frame: ``("out" | "in", text)``.
WireObserver = Callable[[str, str], None]

log = logging.getLogger("superwall_bridge")
bridge_log = logging.getLogger("superwall_bridge.bridge")

MAX_MESSAGE_SIZE = 64 * 1024 * 1024
_NO_ID = object()


class RemoteError(Exception):
    """Raise from a request handler to answer the bridge with this JSON-RPC error."""

    def __init__(self, code: int, message: str, data: Mapping[str, Any] | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = dict(data) if data is not None else None


class Connection:
    """One bridge and the JSON-RPC session with it."""

    def __init__(
        self,
        transport: Transport,
        *,
        on_request: RequestHandler,
        on_notification: NotificationHandler,
        observer: WireObserver | None = None,
    ) -> None:
        self._transport = transport
        self._on_request = on_request
        self._on_notification = on_notification
        self._observer = observer
        self._ids = itertools.count(1)
        self._pending: dict[Any, asyncio.Future[Any]] = {}
        #: Says what is still open when a call times out (set by the client: paywalls on
        #: screen, the bridge's requests not answered yet).
        self.waiting_on: Callable[[], list[str]] | None = None
        #: Called with the method and the exception when one of the app's callbacks (a
        #: delegate, presenter or controller method) raised; it is logged at error either way.
        #: The test fixtures fail the test with it.
        self.on_callback_error: Callable[[str, Exception], None] | None = None
        self._serving: dict[Any, asyncio.Task[None]] = {}
        #: Notifications and the bridge's requests, in arrival order: each request's handler
        #: starts only after every notification before it was handled.
        self._arrivals: asyncio.Queue[tuple[int, str, Any, Any] | None] = asyncio.Queue()
        self._cancelled_early: set[Any] = set()
        self._arrived = 0
        self._dispatched = 0
        self._dispatch_progress = asyncio.Condition()
        self._stderr_tail: collections.deque[str] = collections.deque(maxlen=20)
        self._closed: BridgeClosedError | None = None
        self._tasks: list[asyncio.Task[None]] = []
        self._dispatcher: asyncio.Task[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    @classmethod
    async def spawn(
        cls,
        bridge_path: str,
        arguments: Sequence[str] = (),
        *,
        env: Mapping[str, str] | None = None,
        framing: Framing = "ndjson",
        **options: Any,
    ) -> Connection:
        """Starts the bridge and the tasks that read its output."""
        require_proc()
        process = await asyncio.create_subprocess_exec(
            bridge_path, *arguments,
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
            env={**os.environ, **env} if env is not None else None, limit=MAX_MESSAGE_SIZE,
        )
        connection = cls(ProcessTransport(process, framing), **options)
        connection._start()
        return connection

    @classmethod
    async def open_in_process(
        cls,
        library_path: str | os.PathLike[str] | None = None,
        bridge_options: Mapping[str, Any] | None = None,
        **options: Any,
    ) -> Connection:
        """Starts a bridge in this process, from ``libsuperwall_bridge.so`` (see
        :func:`find_library`). ``bridge_options`` are the command line's serving flags as JSON
        (``{"logLevel": "debug", "trace": "/path"}``)."""
        require_proc()
        connection = cls(LibraryTransport(find_library(library_path), bridge_options), **options)
        connection._start()
        return connection

    def _start(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._dispatcher = asyncio.create_task(self._dispatch_arrivals(), name="superwall-bridge notifications")
        self._tasks = [
            asyncio.create_task(self._read_messages(), name="superwall-bridge reader"),
            self._dispatcher,
            asyncio.create_task(self._read_stderr(), name="superwall-bridge stderr"),
        ]

    @property
    def pid(self) -> int:
        """The bridge's process: this one, for a bridge in-process."""
        return self._transport.pid

    @property
    def loop(self) -> asyncio.AbstractEventLoop | None:
        """The event loop the connection runs on (another thread's, behind ``SyncSuperwall``)."""
        return self._loop

    @property
    def is_closed(self) -> bool:
        return self._closed is not None

    @property
    def returncode(self) -> int | None:
        return self._transport.returncode

    @property
    def stderr_tail(self) -> str:
        """The bridge's last lines of log."""
        return "\n".join(self._stderr_tail)

    # MARK: Sending

    async def request(self, method: str, params: Any = None, *, timeout: float, request_id: Any = None) -> Any:
        """Sends a request and returns its result, or raises the error it answered.

        On timeout the request is cancelled (``$/cancelRequest``) and
        :class:`BridgeTimeoutError` raised; if the bridge goes away first,
        :class:`BridgeClosedError`.
        """
        if self._closed is not None:
            raise self._closed
        if request_id is None:
            request_id = next(self._ids)
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending[request_id] = future
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params is not None:
            message["params"] = params
        try:
            try:
                await self._send(message)
            except BaseException:
                # Nobody will wait on the future now: settle it quietly (a closing connection
                # may already have failed it), or asyncio reports its exception as never retrieved.
                if not future.done():
                    future.cancel()
                elif not future.cancelled():
                    future.exception()
                raise
            return await asyncio.wait_for(asyncio.shield(future), timeout)
        except asyncio.TimeoutError:
            if self._closed is None:
                with contextlib.suppress(BridgeClosedError, ConnectionError):
                    await self._send({"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": request_id}})
            raise BridgeTimeoutError(method, timeout, self.waiting_on() if self.waiting_on else None) from None
        except asyncio.CancelledError:
            if self._closed is None and not future.done():
                with contextlib.suppress(BridgeClosedError, ConnectionError):
                    await self._send({"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": request_id}})
            raise
        finally:
            self._pending.pop(request_id, None)

    def _callback_failed(self, method: str, error: Exception) -> None:
        if self.on_callback_error is not None:
            self.on_callback_error(method, error)

    def fail_waiting(self, error: BaseException) -> int:
        """Fails every call waiting for its answer with ``error`` (a test tool that knows the
        answers will not come), and cancels them at the bridge. Returns how many there were."""
        failed = [(request_id, future) for request_id, future in self._pending.items() if not future.done()]
        for request_id, future in failed:
            future.set_exception(error)
            if self._closed is None:
                asyncio.get_running_loop().create_task(self._cancel_quietly(request_id))
        return len(failed)

    async def _cancel_quietly(self, request_id: Any) -> None:
        with contextlib.suppress(BridgeClosedError, ConnectionError):
            await self._send({"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": request_id}})

    def next_request_id(self) -> int:
        """An id for :meth:`request`, for a caller that needs it before sending."""
        return next(self._ids)

    async def notify(self, method: str, params: Any = None) -> None:
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        await self._send(message)

    async def send_text(self, text: str) -> None:
        """Sends one frame as written (for tests of malformed input)."""
        await self._write(text)

    async def _send(self, message: Mapping[str, Any]) -> None:
        await self._write(json.dumps(message, separators=(",", ":"), ensure_ascii=False))

    async def _write(self, text: str) -> None:
        if self._closed is not None:
            raise self._closed
        if self._observer is not None:
            self._observer("out", text)
        try:
            await self._transport.write(text)
        except MessageTooLargeError as error:
            raise BridgeError(-32600, str(error), "messageTooLarge") from None
        except (ConnectionError, BrokenPipeError) as error:
            raise self._close(f"the bridge stopped reading its input ({error})")

    # MARK: Receiving

    async def _read_messages(self) -> None:
        reason = "the bridge closed its output"
        try:
            while True:
                text = await self._transport.read()
                if text is None:
                    break
                if self._observer is not None:
                    self._observer("in", text)
                try:
                    message = json.loads(text)
                except ValueError as error:
                    raise ProtocolViolationError(f"the bridge sent a frame that is not JSON: {error}: {text[:200]!r}")
                for item in message if isinstance(message, list) else [message]:
                    self._receive(item)
        except ProtocolViolationError as error:
            reason = str(error)
            log.error("%s", error)
            self._transport.kill()
        except (asyncio.IncompleteReadError, ConnectionError) as error:
            reason = f"the bridge's output broke off ({error})"
        except asyncio.CancelledError:
            reason = "the connection was closed"
            raise
        finally:
            with contextlib.suppress(asyncio.TimeoutError, ProcessLookupError):
                await asyncio.wait_for(self._transport.wait(), 2)
            self._close(reason)

    def _receive(self, message: Any) -> None:
        if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
            raise ProtocolViolationError(f"not a JSON-RPC 2.0 message: {message!r}")
        method = message.get("method")
        if isinstance(method, str):
            if method == "$/cancelRequest" and "id" not in message:
                cancelled = (message.get("params") or {}).get("id")
                task = self._serving.get(cancelled)
                if task is not None:
                    task.cancel()
                else:
                    self._cancelled_early.add(cancelled)
                return
            self._arrived += 1
            self._arrivals.put_nowait((self._arrived, method, message.get("params"), message["id"] if "id" in message else _NO_ID))
            return
        future = self._pending.get(message.get("id"))
        if future is None or future.done():
            log.debug("a reply to no waiting request: %r", message)
            return
        if "error" in message:
            future.set_exception(error_from_wire(message["error"]))
        else:
            future.set_result(message.get("result"))

    def _serve(self, request_id: Any, method: str, params: Any) -> None:
        async def answer() -> None:
            reply: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id}
            try:
                reply["result"] = await self._on_request(method, params, request_id)
            except asyncio.CancelledError:
                return  # the bridge cancelled it, or the connection closed: no reply
            except RemoteError as error:
                reply["error"] = {"code": error.code, "message": error.message, **({"data": error.data} if error.data else {})}
            except Exception as error:  # a bug in the app's callback: the bridge must still hear back
                log.exception("answering %s failed", method)
                self._callback_failed(method, error)
                reply["error"] = {"code": -32603, "message": f"{type(error).__name__}: {error}", "data": {"kind": "clientError"}}
            finally:
                self._serving.pop(request_id, None)
            with contextlib.suppress(BridgeClosedError, ConnectionError):
                await self._send(reply)

        self._serving[request_id] = asyncio.create_task(answer(), name=f"answering {method}")

    async def _dispatch_arrivals(self) -> None:
        while (item := await self._arrivals.get()) is not None:
            sequence, method, params, request_id = item
            if request_id is not _NO_ID:
                if request_id in self._cancelled_early:
                    self._cancelled_early.discard(request_id)
                else:
                    self._serve(request_id, method, params)
            else:
                try:
                    await self._on_notification(method, params)
                except Exception as error:
                    log.exception("handling %s failed", method)
                    self._callback_failed(method, error)
            async with self._dispatch_progress:
                self._dispatched = sequence
                self._dispatch_progress.notify_all()

    def arrivals_so_far(self) -> int:
        """How many notifications and requests have arrived; see :meth:`delivered`."""
        return self._arrived

    async def delivered(self, count: int, timeout: float = 30.0) -> None:
        """Waits until the first ``count`` arrivals have been handled, or their requests'
        handlers started (callers that want handler callbacks to have run before they return).
        Gives up after ``timeout`` seconds: an app callback that never returns delays the
        answer, but does not hang it."""
        if asyncio.current_task() is self._dispatcher:
            return  # called from a notification callback: waiting would wait on itself

        async def progress() -> None:
            async with self._dispatch_progress:
                await self._dispatch_progress.wait_for(lambda: self._dispatched >= count or self._closed is not None)

        try:
            await asyncio.wait_for(progress(), timeout)
        except asyncio.TimeoutError:
            log.warning("a notification callback has not returned after %g s; answering without waiting for it", timeout)

    async def _read_stderr(self) -> None:
        lines = self._transport.log_lines()
        if lines is None:
            return
        async for text in lines:
            self._stderr_tail.append(text)
            bridge_log.info("%s", text)

    # MARK: Closing

    def _close(self, reason: str) -> BridgeClosedError:
        if self._closed is None:
            self._closed = BridgeClosedError(reason, self._transport.returncode, self.stderr_tail)
            for future in self._pending.values():
                if not future.done():
                    future.set_exception(self._closed)
            for task in list(self._serving.values()):
                task.cancel()
            self._arrivals.put_nowait(None)
        return self._closed

    async def close(self, timeout: float = 5.0) -> int | None:
        """Ends the bridge's input (it then finishes its work and exits) and waits for the exit;
        kills a process that has not exited within ``timeout``. Returns its exit status."""
        self._transport.close_input()
        try:
            await asyncio.wait_for(asyncio.shield(self._transport.wait()), timeout)
        except asyncio.TimeoutError:
            self._transport.kill()
            await self._transport.wait()
        self._close("the connection was closed")
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError, asyncio.TimeoutError):
                await asyncio.wait_for(task, 1)
        return self._transport.returncode

    def close_input(self) -> None:
        """Ends the bridge's input: it answers what it has read, then exits."""
        self._transport.close_input()

    async def wait(self, timeout: float) -> int:
        """Waits for the bridge to exit by itself; raises ``asyncio.TimeoutError`` if it does not.
        (A bridge in-process ends only when closed: waiting closes its input.)"""
        return await asyncio.wait_for(asyncio.shield(self._transport.wait()), timeout)

    def kill(self) -> None:
        """Ends a bridge process at once (SIGKILL)."""
        self._transport.kill()
