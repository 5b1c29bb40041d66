"""How a :class:`~superwall_bridge.connection.Connection` reaches its bridge: a child process's
standard streams, framed, or the bridge in this process, through ``libsuperwall_bridge.so``'s
C interface (``superwall_bridge.h``), one whole message at a time."""

from __future__ import annotations

import asyncio
import contextlib
import enum
import ctypes
import json
import logging
import os
import threading
from concurrent.futures import Future
from typing import Any, AsyncIterator, Literal, Mapping, Protocol

from ._locate import checkout_build, named, shipped
from .errors import BridgeNotFoundError

Framing = Literal["ndjson", "content-length"]

log = logging.getLogger("superwall_bridge")


class Transport(Protocol):
    """One bridge, as the connection sees it."""

    @property
    def pid(self) -> int: ...

    @property
    def returncode(self) -> int | None: ...

    async def write(self, text: str) -> None:
        """Sends one message; raises :class:`ConnectionError` once the bridge takes no more."""

    async def read(self) -> str | None:
        """The next message the bridge sent; ``None`` once it has ended."""

    def close_input(self) -> None:
        """Ends the bridge's input: it answers what it has, then ends."""

    async def wait(self) -> int:
        """Waits for the bridge to end; its exit status."""

    def kill(self) -> None:
        """Ends the bridge at once, where that is possible."""

    def log_lines(self) -> AsyncIterator[str] | None:
        """The bridge's log lines, when they reach this transport."""


class ProcessTransport:
    """A bridge process's stdin and stdout, with newline-delimited or ``Content-Length`` framing."""

    def __init__(self, process: asyncio.subprocess.Process, framing: Framing) -> None:
        if process.stdin is None or process.stdout is None:
            raise ValueError("the bridge process needs piped stdin and stdout")
        self._process = process
        self._stdin = process.stdin
        self._stdout = process.stdout
        self._framing = framing

    @property
    def pid(self) -> int:
        return self._process.pid

    @property
    def returncode(self) -> int | None:
        return self._process.returncode

    async def write(self, text: str) -> None:
        body = text.encode()
        frame = (f"Content-Length: {len(body)}\r\n\r\n".encode() + body) if self._framing == "content-length" else body + b"\n"
        self._stdin.write(frame)
        await self._stdin.drain()

    async def read(self) -> str | None:
        if self._framing == "ndjson":
            while True:
                line = await self._stdout.readline()
                if not line:
                    return None
                if line.strip():
                    return line.decode()
        length: int | None = None
        while True:
            header = await self._stdout.readline()
            if not header:
                return None
            header = header.strip()
            if not header:
                if length is None:
                    continue
                break
            name, _, value = header.decode("latin-1").partition(":")
            if name.strip().lower() == "content-length":
                length = int(value.strip())
        return (await self._stdout.readexactly(length)).decode()

    def close_input(self) -> None:
        with contextlib.suppress(Exception):
            self._stdin.close()

    async def wait(self) -> int:
        return await self._process.wait()

    def kill(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            self._process.kill()

    async def _stderr(self) -> AsyncIterator[str]:
        stream = self._process.stderr
        if stream is None:
            return
        while line := await stream.readline():
            yield line.decode(errors="replace").rstrip()

    def log_lines(self) -> AsyncIterator[str] | None:
        return self._stderr()


_OUTPUT = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.POINTER(ctypes.c_char), ctypes.c_size_t)


class BridgeCode(enum.IntEnum):
    """The codes of superwall_bridge.h (``SUPERWALL_BRIDGE_*``) that the library's functions
    return; the same list as the header's, the bridge's and the Java class's."""

    TAKEN = 0
    ENDED = 1
    INVALID_ARGUMENT = 2
    TOO_LARGE = 3
    TIMED_OUT = 4
    BUSY = 5

_libraries: dict[str, ctypes.CDLL] = {}


def _load(path: str) -> ctypes.CDLL:
    library = _libraries.get(path)
    if library is None:
        library = ctypes.CDLL(path)
        library.superwall_bridge_open.restype = ctypes.c_void_p
        library.superwall_bridge_open.argtypes = [ctypes.c_char_p, _OUTPUT, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t]
        library.superwall_bridge_send.restype = ctypes.c_int
        library.superwall_bridge_send.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t]
        library.superwall_bridge_close.restype = ctypes.c_int
        library.superwall_bridge_close.argtypes = [ctypes.c_void_p]
        _libraries[path] = library
    return library


class MessageTooLargeError(ConnectionError):
    """The bridge refused a message over its ``maxMessageSize``."""


class LibraryTransport:
    """The bridge in this process, through ``libsuperwall_bridge.so`` (loaded with ctypes).

    Messages go in whole through ``superwall_bridge_send``; the bridge hands each message it
    sends to a callback on one of its own threads, which passes it to the event loop. The
    bridge's log lines go to this process's stderr. Its input ends only with
    ``superwall_bridge_close``, which also waits for it to finish and frees it, so
    :meth:`close_input` starts that (on a worker thread) and :meth:`wait` awaits it.
    """

    def __init__(self, library_path: str, options: Mapping[str, Any] | None = None) -> None:
        self._library = _load(library_path)
        self._loop = asyncio.get_running_loop()
        self._messages: asyncio.Queue[str | None] = asyncio.Queue()
        # Kept alive as long as the bridge may call it.
        self._output = _OUTPUT(self._deliver)
        error = ctypes.create_string_buffer(512)
        text = json.dumps(dict(options)).encode() if options else None
        handle = self._library.superwall_bridge_open(text, self._output, None, error, len(error))
        if not handle:
            raise ValueError(error.value.decode(errors="replace") or "superwall_bridge_open failed")
        self._handle: int | None = handle
        self._closing: Future[int] | None = None
        self._returncode: int | None = None

    def _deliver(self, context: int | None, message: Any, length: int) -> None:
        text = ctypes.string_at(message, length).decode()
        self._loop.call_soon_threadsafe(self._messages.put_nowait, text)

    @property
    def pid(self) -> int:
        return os.getpid()

    @property
    def returncode(self) -> int | None:
        return self._returncode

    async def write(self, text: str) -> None:
        if self._handle is None or self._closing is not None:
            raise ConnectionError("the in-process bridge has been closed")
        body = text.encode()
        result = self._library.superwall_bridge_send(self._handle, body, len(body))
        if result == BridgeCode.TOO_LARGE:
            raise MessageTooLargeError(f"the bridge refused a message of {len(body)} bytes, over its maxMessageSize")
        if result != BridgeCode.TAKEN:
            raise ConnectionError("the in-process bridge has ended")

    async def read(self) -> str | None:
        return await self._messages.get()

    def close_input(self) -> None:
        if self._closing is not None or self._handle is None:
            return
        handle = self._handle
        self._closing = Future()
        closing = self._closing

        def close() -> None:
            status = self._library.superwall_bridge_close(handle)
            closing.set_result(status)

        threading.Thread(target=close, name="superwall-bridge close", daemon=True).start()

    async def wait(self) -> int:
        self.close_input()
        assert self._closing is not None
        status = await asyncio.wrap_future(self._closing)
        if self._returncode is None:
            self._returncode = status
            self._handle = None
            # The callback has run its last: whatever it passed on is queued before this.
            self._loop.call_soon(self._messages.put_nowait, None)
        return status

    def kill(self) -> None:
        log.warning("an in-process bridge cannot be killed; it ends within its drain deadline")

    def log_lines(self) -> AsyncIterator[str] | None:
        return None


def find_library(library_path: str | os.PathLike[str] | None = None) -> str:
    """``libsuperwall_bridge.so``: ``library_path``, else ``$SUPERWALL_BRIDGE_LIBRARY``, else the
    one the platform wheel ships, else (for a client used from the bridge's own checkout) that
    checkout's ``make dist`` or ``swift build`` output. Never a file found by searching the
    working directory."""
    if chosen := named(library_path, "SUPERWALL_BRIDGE_LIBRARY", "bridge library"):
        return chosen
    if bundled := shipped("lib/libsuperwall_bridge.so"):
        return bundled
    if checkout := checkout_build("libsuperwall_bridge.so", ("dist", "release", "debug")):
        return checkout
    raise BridgeNotFoundError(
        "libsuperwall_bridge.so not found: install the platform wheel, which ships it (pip install superwall-bridge), "
        "pass library_path, set SUPERWALL_BRIDGE_LIBRARY, or build it with `make dist` in the bridge's checkout")
