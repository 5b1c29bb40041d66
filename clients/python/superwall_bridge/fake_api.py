"""A local Superwall API for HTTP-mode tests: ``superwall-bridge fake-api`` in a child process.

It serves the config, paywalls, assignments, the events collector, redemption and web
entitlements as the bridge's ``http`` config source asks for them, and records every request.
Give a bridge ``configure(options={"configSource": api.config_source})`` and read back what
the bridge sent with :meth:`FakeSuperwallAPI.requests` and :meth:`FakeSuperwallAPI.events`.
The script's format (scripted failures, delays, starting assignments, redeemable codes) is in
docs/testing.md.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any, Mapping

from .client import find_bridge

__all__ = ["FakeSuperwallAPI", "RecordedRequest"]


@dataclass(frozen=True)
class RecordedRequest:
    """One request the fake API received; the API key is masked (its first four characters, then …)."""

    method: str
    path: str
    query: str
    #: Header names are lowercased.
    headers: Mapping[str, str]
    body: str | None

    def json(self) -> Any:
        """The body, decoded."""
        if self.body is None:
            raise ValueError(f"{self.method} {self.path} had no body")
        return json.loads(self.body)


class FakeSuperwallAPI:
    """``superwall-bridge fake-api``, started by :meth:`start` or ``with``, ended by :meth:`close`.

    ``config`` is what ``/api/v1/static_config`` serves: a path, a config as a mapping, or
    ``None`` for the embedded demo app's. ``script`` scripts answers and starting state.
    """

    def __init__(self, *, config: str | os.PathLike[str] | Mapping[str, Any] | None = None,
                 script: Mapping[str, Any] | None = None, port: int = 0,
                 bridge_path: str | os.PathLike[str] | None = None) -> None:
        self._folder = tempfile.TemporaryDirectory(prefix="superwall-fake-api-")
        self._record = Path(self._folder.name) / "requests.jsonl"
        self._arguments = [find_bridge(bridge_path), "fake-api", "--record", str(self._record), "--port", str(port)]
        if isinstance(config, Mapping):
            path = Path(self._folder.name) / "config.json"
            path.write_text(json.dumps(config))
            self._arguments += ["--config", str(path)]
        elif config is not None:
            self._arguments += ["--config", os.fspath(config)]
        if script is not None:
            path = Path(self._folder.name) / "script.json"
            path.write_text(json.dumps(script))
            self._arguments += ["--script", str(path)]
        self._process: subprocess.Popen[bytes] | None = None
        self._base_url: str | None = None

    def start(self) -> FakeSuperwallAPI:
        """Starts the server and waits for its address."""
        if self._process is not None:
            return self
        process = subprocess.Popen(self._arguments, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE)
        assert process.stdout is not None and process.stderr is not None
        first = process.stdout.readline()
        if not first:
            process.wait(timeout=10)
            message = process.stderr.read().decode(errors="replace").strip()
            raise RuntimeError(f"superwall-bridge fake-api did not start (exit {process.returncode}): {message}")
        self._process = process
        self._base_url = json.loads(first)["baseUrl"]
        return self

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT``."""
        if self._base_url is None:
            raise RuntimeError("the fake API is not started: call start() or use it in a with block")
        return self._base_url

    @property
    def config_source(self) -> dict[str, str]:
        """``configure``'s ``options.configSource`` for this server."""
        return {"type": "http", "baseUrl": self.base_url}

    def requests(self, path: str | None = None, *, method: str | None = None) -> list[RecordedRequest]:
        """Every request received so far, in order; only those for ``path`` (and ``method``) when given."""
        if not self._record.exists():
            return []
        recorded = [RecordedRequest(**json.loads(line)) for line in self._record.read_text().splitlines() if line]
        return [request for request in recorded
                if (path is None or request.path == path) and (method is None or request.method == method)]

    def events(self) -> list[dict[str, Any]]:
        """Every event the bridge posted to the collector, in order: ``{event_name, parameters, ...}``."""
        return [event for post in self.requests("/api/v1/events", method="POST") for event in post.json()["events"]]

    def event_names(self) -> list[str]:
        return [event["event_name"] for event in self.events()]

    def confirmed_assignments(self) -> list[dict[str, str]]:
        """Every assignment the bridge confirmed to the server: ``{experiment_id, variant_id}``."""
        return [assignment for post in self.requests("/api/v1/confirm_assignments", method="POST")
                for assignment in post.json()["assignments"]]

    def close(self) -> None:
        """Ends the server (end of input) and removes its files."""
        process, self._process = self._process, None
        if process is not None:
            assert process.stdin is not None
            process.stdin.close()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
            for stream in (process.stdout, process.stderr):
                if stream is not None:
                    stream.close()
        self._folder.cleanup()

    def __enter__(self) -> FakeSuperwallAPI:
        return self.start()

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self.close()
