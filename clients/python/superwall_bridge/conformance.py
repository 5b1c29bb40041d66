"""Runs the protocol's conformance scenarios (``protocol/conformance/scenarios/*.json``)
against a bridge binary, through this package's :class:`~superwall_bridge.Connection`.

A scenario is a scripted exchange; ``protocol/conformance/README.md`` defines its steps and
patterns. Use it from tests, or from the command line::

    python -m superwall_bridge.conformance [--bridge PATH] [--framing content-length] [SCENARIO.json ...]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import shutil
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from .client import find_bridge
from .connection import Connection, Framing, RemoteError

DEFAULT_WITHIN_MS = 5000
_PLACEHOLDER = re.compile(r"\$\{([^}]+)\}")
_ABSENT = "$absent"
_TYPES: dict[str, type | tuple[type, ...]] = {"$string": str, "$number": (int, float), "$bool": bool, "$array": list, "$object": dict}


class ScenarioFailure(AssertionError):
    """A step of a scenario did not hold."""


def default_scenario_directory() -> Path:
    """``protocol/conformance`` of the checkout this package sits in or the working directory
    is in (an installed package sits in site-packages, far from any checkout)."""
    for start in (Path(__file__).resolve(), Path.cwd().resolve() / "."):
        for root in start.parents:
            candidate = root / "protocol" / "conformance"
            if (candidate / "scenarios").is_dir():
                return candidate
    raise FileNotFoundError(
        "protocol/conformance was not found above this package or the working directory: "
        "run from a superwall-bridge checkout, or pass --conformance-dir")


def scenario_files(directory: Path | None = None) -> list[Path]:
    return sorted(((directory or default_scenario_directory()) / "scenarios").glob("*.json"))


def mismatch(pattern: Any, actual: Any, path: str = "$") -> str | None:
    """Why ``actual`` does not match ``pattern``, or ``None`` when it does.

    Objects match when every key of the pattern matches (others are ignored; ``"$absent"``
    requires the key to be missing); arrays element by element, with the same length, or
    ``{"$contains": [...]}`` when each listed pattern matches some element;
    ``"$any"``, ``"$string"``, ``"$number"``, ``"$bool"``, ``"$array"``, ``"$object"`` match by
    type; anything else by equality (``1`` and ``1.0`` are equal, ``true`` and ``1`` are not).
    """
    if isinstance(pattern, str) and pattern == "$any":
        return None
    if isinstance(pattern, str) and pattern in _TYPES:
        expected = _TYPES[pattern]
        if isinstance(actual, expected) and not (pattern == "$number" and isinstance(actual, bool)):
            return None
        return f"{path}: expected {pattern[1:]}, got {json.dumps(actual)}"
    if isinstance(pattern, dict) and set(pattern) == {"$contains"}:
        if not isinstance(actual, list):
            return f"{path}: expected an array, got {json.dumps(actual)[:200]}"
        for item in pattern["$contains"]:
            if all(mismatch(item, element) is not None for element in actual):
                return f"{path}: no element matches {json.dumps(item)}"
        return None
    if isinstance(pattern, dict):
        if not isinstance(actual, dict):
            return f"{path}: expected an object, got {json.dumps(actual)}"
        for key, value in pattern.items():
            if value == _ABSENT:
                if key in actual:
                    return f"{path}.{key}: expected no such key, got {json.dumps(actual[key])}"
                continue
            if key not in actual:
                return f"{path}.{key}: missing"
            if reason := mismatch(value, actual[key], f"{path}.{key}"):
                return reason
        return None
    if isinstance(pattern, list):
        if not isinstance(actual, list) or len(actual) != len(pattern):
            return f"{path}: expected {len(pattern)} elements, got {json.dumps(actual)[:200]}"
        for index, (item, value) in enumerate(zip(pattern, actual)):
            if reason := mismatch(item, value, f"{path}[{index}]"):
                return reason
        return None
    if isinstance(pattern, bool) != isinstance(actual, bool) or pattern != actual:
        return f"{path}: expected {json.dumps(pattern)}, got {json.dumps(actual)[:200]}"
    return None


@dataclass
class Outcome:
    """What a scenario run saw: every frame in and out, in order."""

    name: str
    frames: list[tuple[str, str]] = field(default_factory=list)


class ScenarioRun:
    """One scenario against one fresh bridge process."""

    def __init__(self, scenario: dict[str, Any], bridge: str, *, framing: Framing = "ndjson",
                 conformance_directory: Path | None = None, trace: Path | None = None,
                 library: str | None = None) -> None:
        """``library``: run the scenario on a bridge in this process, loaded from that
        ``libsuperwall_bridge.so``, instead of spawning ``bridge``."""
        self.scenario = scenario
        self.bridge = bridge
        self.framing = framing
        self.library = library
        self.directory = conformance_directory or default_scenario_directory()
        self.trace = trace
        self.values: dict[str, Any] = {}
        self.outcome = Outcome(scenario.get("name", "?"))
        # Made in `run`, on the loop that runs it: on Python 3.9 a queue belongs to the loop
        # current when it is made.
        self._incoming: asyncio.Queue[Any]
        self._replies: dict[Any, asyncio.Future[tuple[str, Any]]] = {}
        self._auto_replies: dict[str, Any] = scenario.get("autoReply", {})
        self._connection: Connection | None = None

    async def run(self) -> Outcome:
        self._incoming = asyncio.Queue()
        data_directory = tempfile.mkdtemp(prefix="superwall-conformance-")
        work_directory = tempfile.mkdtemp(prefix="superwall-conformance-work-")
        self.values.update({"dataDirectory": data_directory, "workDirectory": work_directory, "conformance": str(self.directory)})
        if self.library is not None:
            self._connection = await Connection.open_in_process(
                self.library, {"trace": str(self.trace)} if self.trace else None, on_request=self._on_request,
                on_notification=self._ignore, observer=self._observe)
        else:
            arguments = ["--trace", str(self.trace)] if self.trace else []
            self._connection = await Connection.spawn(
                self.bridge, arguments, framing=self.framing, on_request=self._on_request,
                on_notification=self._ignore, observer=self._observe)
        try:
            for index, step in enumerate(self.scenario["steps"]):
                try:
                    await self._perform(step)
                except ScenarioFailure as failure:
                    raise ScenarioFailure(f"{self.outcome.name}, step {index + 1} {json.dumps(step)[:300]}: {failure}") from None
        finally:
            await self._connection.close(timeout=5)
            shutil.rmtree(data_directory, ignore_errors=True)
            shutil.rmtree(work_directory, ignore_errors=True)
        return self.outcome

    # MARK: The bridge's side

    def _observe(self, direction: str, text: str) -> None:
        self.outcome.frames.append((direction, text))
        if direction != "in":
            return
        try:
            message = json.loads(text)
        except ValueError:
            message = {"unparsable": text}
        if isinstance(message, dict) and isinstance(message.get("method"), str) and "id" in message:
            future = asyncio.get_running_loop().create_future()
            self._replies[message["id"]] = future
            if message["method"] in self._auto_replies:
                future.set_result(self._reply_body(self._auto_replies[message["method"]]))
        self._incoming.put_nowait(message)

    async def _on_request(self, method: str, params: Any, request_id: Any) -> Any:
        kind, value = await self._replies[request_id]
        if kind == "error":
            raise RemoteError(value.get("code", -32000), value.get("message", ""), value.get("data"))
        if kind == "raw":
            assert self._connection is not None
            await self._connection.send_text(value)
            await asyncio.Future()  # the raw text was the reply; wait until cancelled
        return value

    async def _ignore(self, method: str, params: Any) -> None:
        return None

    @staticmethod
    def _reply_body(reply: dict[str, Any]) -> tuple[str, Any]:
        for kind in ("result", "error", "raw"):
            if kind in reply:
                return kind, reply[kind]
        raise ScenarioFailure(f"a reply needs result, error or raw: {reply}")

    # MARK: Steps

    async def _perform(self, step: dict[str, Any]) -> None:
        assert self._connection is not None
        if "send" in step:
            await self._connection.send_text(json.dumps({"jsonrpc": "2.0", **self._substitute(step["send"])}, ensure_ascii=False))
        elif "sendRaw" in step:
            await self._connection.send_text(self._substitute(step["sendRaw"]))
        elif "expect" in step:
            message = await self._expect(self._substitute(step["expect"]), step.get("withinMs", DEFAULT_WITHIN_MS))
            if "as" in step:
                self.values[step["as"]] = message
            for name, path in step.get("capture", {}).items():
                self.values[name] = _lookup(message, path)
            if "reply" in step:
                self._reply(message.get("id"), step["reply"], step.get("replyAfterMs", 0))
        elif "expectUnordered" in step:
            await self._expect_unordered(self._substitute(step["expectUnordered"]), step.get("withinMs", DEFAULT_WITHIN_MS))
        elif "expectBatch" in step:
            await self._expect_batch(self._substitute(step["expectBatch"]), step.get("withinMs", DEFAULT_WITHIN_MS))
        elif "expectNot" in step:
            await self._expect_not(self._substitute(step["expectNot"]), step.get("withinMs", 200))
        elif "respond" in step:
            respond = self._substitute(step["respond"])
            request = self.values.get(respond["to"])
            if not isinstance(request, dict) or "id" not in request:
                raise ScenarioFailure(f"no captured request named {respond['to']}")
            self._reply(request["id"], respond, respond.get("afterMs", 0))
        elif "copyFile" in step:
            copy = self._substitute(step["copyFile"])
            shutil.copyfile(copy["from"], copy["to"])
        elif "writeFile" in step:
            write = self._substitute(step["writeFile"])
            Path(write["path"]).write_text(write["text"], encoding="utf-8")
        elif "sleep" in step:
            await asyncio.sleep(step["sleep"] / 1000)
        elif "closeInput" in step:
            self._connection.close_input()
        elif "expectExit" in step:
            expected = step["expectExit"]
            try:
                code = await self._connection.wait(expected.get("withinMs", DEFAULT_WITHIN_MS) / 1000)
            except asyncio.TimeoutError:
                raise ScenarioFailure("the bridge did not exit") from None
            if "code" in expected and code != expected["code"]:
                raise ScenarioFailure(f"exit status {code}, expected {expected['code']}")
        else:
            raise ScenarioFailure(f"unknown step {step}")

    def _reply(self, request_id: Any, reply: dict[str, Any], after_ms: int) -> None:
        future = self._replies.get(request_id)
        if future is None:
            raise ScenarioFailure(f"no bridge request with id {request_id!r} to reply to")
        body = self._reply_body(reply)
        if after_ms:
            def deliver() -> None:
                if not future.done():
                    future.set_result(body)

            asyncio.get_running_loop().call_later(after_ms / 1000, deliver)
        elif not future.done():
            future.set_result(body)

    async def _next(self, deadline: float) -> Any:
        remaining = deadline - asyncio.get_running_loop().time()
        if remaining <= 0:
            raise asyncio.TimeoutError
        return await asyncio.wait_for(self._incoming.get(), remaining)

    async def _expect(self, pattern: Any, within_ms: int) -> Any:
        deadline = asyncio.get_running_loop().time() + within_ms / 1000
        passed: list[str] = []
        while True:
            try:
                message = await self._next(deadline)
            except asyncio.TimeoutError:
                raise ScenarioFailure(f"nothing matched within {within_ms} ms; passed over: {passed[-8:]}") from None
            reason = mismatch(pattern, message)
            if reason is None:
                return message
            passed.append(f"{json.dumps(message)[:160]} ({reason})")

    async def _expect_unordered(self, patterns: list[Any], within_ms: int) -> None:
        deadline = asyncio.get_running_loop().time() + within_ms / 1000
        waiting = list(patterns)
        while waiting:
            try:
                message = await self._next(deadline)
            except asyncio.TimeoutError:
                raise ScenarioFailure(f"nothing matched {json.dumps(waiting)[:300]} within {within_ms} ms") from None
            match = next((pattern for pattern in waiting if mismatch(pattern, message) is None), None)
            if match is not None:
                waiting.remove(match)

    async def _expect_batch(self, patterns: list[Any], within_ms: int) -> None:
        deadline = asyncio.get_running_loop().time() + within_ms / 1000
        while True:
            try:
                message = await self._next(deadline)
            except asyncio.TimeoutError:
                raise ScenarioFailure(f"no batch reply within {within_ms} ms") from None
            if isinstance(message, list):
                break
        unmatched = list(message)
        for pattern in patterns:
            match = next((item for item in unmatched if mismatch(pattern, item) is None), None)
            if match is None:
                raise ScenarioFailure(f"the batch {json.dumps(message)} has nothing matching {json.dumps(pattern)}")
            unmatched.remove(match)
        if unmatched:
            raise ScenarioFailure(f"the batch has replies no pattern expects: {json.dumps(unmatched)}")

    async def _expect_not(self, pattern: Any, within_ms: int) -> None:
        deadline = asyncio.get_running_loop().time() + within_ms / 1000
        while True:
            try:
                message = await self._next(deadline)
            except asyncio.TimeoutError:
                return
            if mismatch(pattern, message) is None:
                raise ScenarioFailure(f"unexpected {json.dumps(message)[:300]}")

    def _substitute(self, value: Any) -> Any:
        if isinstance(value, str):
            whole = _PLACEHOLDER.fullmatch(value)
            if whole:
                return self._value(whole.group(1))
            return _PLACEHOLDER.sub(lambda match: str(self._value(match.group(1))), value)
        if isinstance(value, list):
            return [self._substitute(item) for item in value]
        if isinstance(value, dict):
            return {key: self._substitute(item) for key, item in value.items()}
        return value

    def _value(self, name: str) -> Any:
        head, _, rest = name.partition(".")
        if head not in self.values:
            raise ScenarioFailure(f"${{{name}}} names nothing captured yet")
        return _lookup(self.values[head], rest) if rest else self.values[head]


def _lookup(message: Any, path: str) -> Any:
    value = message
    for part in path.split(".") if path else []:
        if not isinstance(value, dict) or part not in value:
            raise ScenarioFailure(f"{path} is not in {json.dumps(message)[:200]}")
        value = value[part]
    return value


def load(path: Path) -> dict[str, Any]:
    with open(path, encoding="utf-8") as file:
        scenario = json.load(file)
    if not isinstance(scenario, dict):
        raise ScenarioFailure(f"{path} is not a scenario object")
    return scenario


async def run_scenarios(paths: Iterable[Path], bridge: str, framing: Framing = "ndjson") -> list[tuple[str, str | None]]:
    results: list[tuple[str, str | None]] = []
    for path in paths:
        try:
            # A scenario's configs sit beside its folder: conformance/{scenarios,configs}.
            await ScenarioRun(load(path), bridge, framing=framing, conformance_directory=path.resolve().parent.parent).run()
            results.append((path.stem, None))
        except ScenarioFailure as failure:
            results.append((path.stem, str(failure)))
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bridge", help="the bridge binary (default: as Superwall.start finds it)")
    parser.add_argument("--framing", choices=["ndjson", "content-length"], default="ndjson")
    parser.add_argument("--conformance-dir", type=Path, help="the protocol/conformance folder of a superwall-bridge checkout")
    parser.add_argument("scenarios", nargs="*", type=Path)
    arguments = parser.parse_args(argv)
    try:
        paths = arguments.scenarios or scenario_files(arguments.conformance_dir)
    except FileNotFoundError as error:
        parser.error(str(error))
    results = asyncio.run(run_scenarios(paths, find_bridge(arguments.bridge), arguments.framing))
    for name, failure in results:
        print(f"{'ok  ' if failure is None else 'FAIL'} {name}" + (f"\n     {failure}" if failure else ""))
    failed = sum(1 for _, failure in results if failure)
    print(f"{len(results) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
