#!/usr/bin/env python3
"""The smallest complete client of superwall-bridge, with nothing but the standard library:
the messages a wrapper must speak, in order, over newline-delimited JSON-RPC.

It starts the bridge, configures it on its embedded demo, registers a gated placement, shows
the paywall (by answering `paywall/present`), buys its product through its own purchase
controller, and shuts down. Every message is printed as it goes (`->` to the bridge, `<-`
from it), so the run is a transcript: docs/writing-a-client.md shows one.

    python3 docs/examples/minimal_client.py path/to/superwall-bridge [data-directory]
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from typing import Any

COACH = "com.pockettrainer.coach.monthly"


class Bridge:
    def __init__(self, binary: str) -> None:
        # stderr is the bridge's log, never protocol: leave it to the terminal.
        self.process = subprocess.Popen([binary], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
        self.next_id = 0
        self.held: list[dict[str, Any]] = []

    def send(self, message: dict[str, Any]) -> None:
        message = {"jsonrpc": "2.0", **message}
        print("->", json.dumps(message))
        assert self.process.stdin
        self.process.stdin.write(json.dumps(message) + "\n")
        self.process.stdin.flush()

    def request(self, method: str, params: dict[str, Any] | None = None) -> int:
        # Ids start at 1: 0 is a valid id, but a JSON library that drops zero values
        # (Go's omitempty) would turn the request into a notification, which gets no answer.
        self.next_id += 1
        self.send({"id": self.next_id, "method": method, **({"params": params} if params is not None else {})})
        return self.next_id

    def receive(self) -> dict[str, Any]:
        assert self.process.stdout
        line = self.process.stdout.readline()
        if not line:
            raise SystemExit("the bridge closed its output")
        message = json.loads(line)
        print("<-", json.dumps(message))
        return message

    def answer(self, request: dict[str, Any], result: Any) -> None:
        self.send({"id": request["id"], "result": result})

    def until(self, wanted) -> dict[str, Any]:  # type: ignore[no-untyped-def]
        """Reads until a message `wanted` accepts, answering the bridge's requests on the way."""
        while True:
            message = self.receive()
            if wanted(message):
                return message
            if "method" in message and "id" in message:
                self.handle_request(message)
            # Notifications (the delegate's) need no answer.

    def reply(self, request_id: int) -> dict[str, Any]:
        message = self.until(lambda m: m.get("id") == request_id and "method" not in m)
        if "error" in message:
            raise SystemExit(f"error: {message['error']}")
        return message["result"]

    def handle_request(self, request: dict[str, Any]) -> None:
        """What a client must answer at any time, whatever it is waiting for."""
        method = request["method"]
        if method == "purchaseController/purchase":
            # The app's store buys; the controller owns the status and sets it before answering.
            status = self.request("setSubscriptionStatus", {"status": {"type": "active", "entitlements": [{"id": "pro"}, {"id": "coach"}]}})
            self.reply(status)
            self.answer(request, {"type": "purchased", "transaction": {"transactionId": "store-1"}})
        elif method in ("paywall/present", "paywall/dismiss", "paywall/loadingState"):
            self.answer(request, {})  # shown, taken down, the spinner drawn
        else:
            # Anything this client does not handle is an error reply, never silence: the bridge
            # would otherwise wait out its deadline.
            self.send({"id": request["id"], "error": {"code": -32601, "message": f"{method} is not handled by this client"}})


def main() -> int:
    binary = sys.argv[1]
    directory = sys.argv[2] if len(sys.argv) > 2 else tempfile.mkdtemp(prefix="minimal-client-")
    bridge = Bridge(binary)
    bridge.reply(bridge.request("initialize", {
        "protocolVersion": "1.0", "client": {"name": "minimal-client", "version": "1.0"},
        "capabilities": {"paywallPresenter": True, "purchaseController": True},
    }))
    configured = bridge.reply(bridge.request("configure", {
        "apiKey": "pk_minimal", "options": {"configSource": {"type": "embedded"}, "dataDirectory": directory},
    }))
    assert configured["configurationStatus"] == "configured", configured
    # With a purchase controller the status is unknown until the client says: placements wait for it.
    bridge.reply(bridge.request("setSubscriptionStatus", {"status": {"type": "inactive"}}))

    register = bridge.request("register", {"placement": "open_coach_chat", "hasFeature": True})
    present = bridge.until(lambda m: m.get("method") == "paywall/present")
    bridge.answer(present, {})
    session = present["params"]["sessionId"]
    # The user taps "subscribe" on the page: the client forwards it.
    purchase = bridge.request("paywall/action", {"sessionId": session, "action": {"type": "purchase", "productId": COACH}})
    bought = bridge.reply(purchase)
    registered = bridge.reply(register)
    assert bought["result"]["type"] == "purchased", bought
    assert registered["featureGranted"] is True, registered

    bridge.reply(bridge.request("shutdown"))
    bridge.send({"method": "exit"})
    return bridge.process.wait(timeout=10)


if __name__ == "__main__":
    sys.exit(main())
