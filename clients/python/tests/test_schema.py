"""protocol/openrpc.json against the real bridge: every message the bridge sent in the
traced suites (the Swift end-to-end suites and this one) validates against the document, and
the methods the bridge answers are exactly the documented ones.

Run after the other tests of the session (pytest runs files in name order, and the Makefile
runs the Swift suites first), so that the traces are there to read.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any, Iterator

import pytest
from jsonschema import Draft202012Validator

from superwall_bridge import MethodNotFoundError, NotImplementedByBridgeError, Superwall

from conftest import PROTOCOL

DOCUMENT = json.loads((PROTOCOL / "openrpc.json").read_text())
METHODS = {method["name"]: method for method in DOCUMENT["methods"]}


def tags(method: dict[str, Any]) -> set[str]:
    return {tag["name"] for tag in method.get("tags", [])}


def validator(schema: Any) -> Draft202012Validator:
    """A validator for a schema of the document, its ``#/components/...`` references resolved."""
    root = {**schema, "components": DOCUMENT["components"]} if isinstance(schema, dict) else schema
    return Draft202012Validator(root)


def problems(schema: Any, value: Any) -> list[str]:
    return [f"{'/'.join(map(str, error.absolute_path)) or '(root)'}: {error.message[:200]}" for error in validator(schema).iter_errors(value)]


def params_problems(method: dict[str, Any], params: Any) -> list[str]:
    params = params if params is not None else {}
    if not isinstance(params, dict):
        return [f"params of {method['name']} must be an object"]
    found: list[str] = []
    for param in method.get("params", []):
        if param["name"] not in params:
            if param.get("required", False):
                found.append(f"{method['name']}: missing param {param['name']}")
            continue
        found += [f"{method['name']}.{param['name']}/{problem}" for problem in problems(param["schema"], params[param["name"]])]
    return found


def test_the_document_is_openrpc_with_valid_schemas() -> None:
    assert DOCUMENT["openrpc"].startswith("1.")
    for name, schema in DOCUMENT["components"]["schemas"].items():
        Draft202012Validator.check_schema(schema)
    for method in DOCUMENT["methods"]:
        assert tags(method) & {"client-to-bridge", "bridge-to-client", "lifecycle"}, method["name"]
        for param in method.get("params", []):
            Draft202012Validator.check_schema(param["schema"])


def traced_frames(directory: Path) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """Each trace file's frames, as (file name, [{direction, message}])."""
    for path in sorted(directory.glob("*.jsonl")):
        frames = []
        lines = path.read_text().splitlines()
        for number, line in enumerate(lines, 1):
            try:
                record = json.loads(line)
            except ValueError:
                # A bridge the test killed mid-write ends its trace with part of a line.
                assert number == len(lines), f"{path.name}:{number} is not a trace line"
                break
            try:
                message = json.loads(record["frame"])
            except ValueError:
                continue  # malformed input the test sent on purpose
            frames.append({"direction": record["direction"], "message": message})
        yield path.name, frames


def check_trace(frames: list[dict[str, Any]]) -> tuple[list[str], int]:
    """Problems with what the bridge sent in one trace, and how many messages were checked."""
    asked: dict[str, str] = {}
    found: list[str] = []
    checked = 0
    for frame in frames:
        items = frame["message"] if isinstance(frame["message"], list) else [frame["message"]]
        for message in items:
            if not isinstance(message, dict):
                continue
            if frame["direction"] == "in":
                if isinstance(message.get("method"), str) and "id" in message:
                    asked[json.dumps(message["id"])] = message["method"]
                continue
            checked += 1
            method_name = message.get("method")
            if isinstance(method_name, str):
                method = METHODS.get(method_name)
                if method is None or "bridge-to-client" not in tags(method):
                    found.append(f"the bridge sent {method_name}, which the document does not list as bridge-to-client")
                    continue
                if ("id" in message) == bool(method.get("x-notification")):
                    found.append(f"{method_name} sent as {'a request' if 'id' in message else 'a notification'}")
                found += params_problems(method, message.get("params"))
            elif "error" in message:
                found += [f"error {json.dumps(message)[:120]}: {problem}" for problem in problems({"$ref": "#/components/schemas/ErrorObject"}, message["error"])]
                kind = (message["error"].get("data") or {}).get("kind")
                if kind not in DOCUMENT["components"]["schemas"]["ErrorKind"]["enum"]:
                    found.append(f"error kind {kind!r} is not in ErrorKind")
            elif "result" in message:
                answered = asked.get(json.dumps(message.get("id")))
                if answered is None or answered not in METHODS:
                    continue  # a reply to a batch element or to malformed input: no method to check against
                found += [f"{answered} result/{problem}" for problem in problems(METHODS[answered]["result"]["schema"], message["result"])]
    return found, checked


def test_every_message_the_bridge_sent_validates_against_the_document(trace_directory: Path) -> None:
    traces = list(traced_frames(trace_directory))
    if not traces:
        pytest.skip("no wire traces: run the conformance and client tests (or `make test`) first")
    total = 0
    failures: list[str] = []
    for name, frames in traces:
        found, checked = check_trace(frames)
        total += checked
        failures += [f"{name}: {problem}" for problem in found]
    assert not failures, "\n".join(failures[:40])
    assert total > 500, f"only {total} messages were checked"


def test_the_methods_the_bridge_answers_are_the_documented_ones(bridge: str) -> None:
    documented = {name for name, method in METHODS.items()
                  if not method.get("x-notification") and "bridge-to-client" not in tags(method) and method.get("x-implemented", True)}
    not_built = {name for name, method in METHODS.items() if method.get("x-implemented") is False}

    async def check() -> None:
        async with Superwall.start(bridge) as sw:
            assert set(sw.server.methods) == documented
            for name in sorted(not_built):
                with pytest.raises(NotImplementedByBridgeError):
                    await sw.call(name, {})
            with pytest.raises(MethodNotFoundError):
                await sw.call("noSuchMethod", {})

    asyncio.run(check())


def test_a_message_off_the_schema_is_caught() -> None:
    """The checker itself: a result missing a required field, and an unknown notification."""
    frames = [
        {"direction": "in", "message": {"jsonrpc": "2.0", "id": 1, "method": "getUserId"}},
        {"direction": "out", "message": {"jsonrpc": "2.0", "id": 1, "result": {"userId": "u"}}},
        {"direction": "out", "message": {"jsonrpc": "2.0", "method": "delegate/noSuchThing", "params": {}}},
        {"direction": "out", "message": {"jsonrpc": "2.0", "method": "handler/onSkip", "params": {"registerId": 1, "reason": {"type": "nope"}}}},
    ]
    found, checked = check_trace(frames)
    assert checked == 3
    assert any("getUserId result" in problem and "aliasId" in problem for problem in found)
    assert any("delegate/noSuchThing" in problem for problem in found)
    assert any(problem.startswith("handler/onSkip.reason") for problem in found)


