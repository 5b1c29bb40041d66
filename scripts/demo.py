#!/usr/bin/env python3
"""Drive superwall-bridge through a short scripted session and print the transcript.

Usage: demo.py PATH_TO_BINARY

A real client over the bridge's stdin and stdout (newline-delimited JSON-RPC 2.0): the
handshake, a liveness ping, an echo, the error answers a wrapper author will meet, a batch,
and a clean shutdown. Every call waits at most a few seconds for its reply.
"""
import json
import select
import subprocess
import sys
import time

REPLY_TIMEOUT_S = 5.0


class Session:
    def __init__(self, binary: str) -> None:
        self.process = subprocess.Popen(
            [binary, "--log-level", "info"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self.next_id = 1
        self.pending = b""

    def send_raw(self, line: str) -> None:
        print(f"\n\u2192 {line}")
        self.process.stdin.write(line.encode() + b"\n")
        self.process.stdin.flush()

    def send(self, message: dict) -> None:
        self.send_raw(json.dumps(message, separators=(",", ":"), ensure_ascii=False))

    def call(self, method: str, params=None):
        message = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        if params is not None:
            message["params"] = params
        self.next_id += 1
        self.send(message)
        return self.receive()

    def receive(self):
        deadline = time.monotonic() + REPLY_TIMEOUT_S
        while b"\n" not in self.pending:
            remaining = deadline - time.monotonic()
            ready, _, _ = select.select([self.process.stdout], [], [], max(0.0, remaining))
            if not ready:
                raise TimeoutError("no reply within %.0f s" % REPLY_TIMEOUT_S)
            chunk = self.process.stdout.read1(65536)
            if not chunk:
                raise EOFError("the bridge closed its output")
            self.pending += chunk
        line, self.pending = self.pending.split(b"\n", 1)
        print(f"\u2190 {line.decode()}")
        return json.loads(line)


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    started = time.monotonic()
    session = Session(sys.argv[1])

    print("== handshake: initialize must come first")
    session.call("$/ping")
    reply = session.call("initialize", {
        "protocolVersion": "1.0",
        "client": {"name": "demo.py", "version": "1.0"},
        "capabilities": {"purchaseController": True, "paywallPresenter": True,
                         "customCallbacks": True, "delegate": True},
    })
    print(f"   bridge {reply['result']['server']['version']}, following SuperwallKit {reply['result']['sdkVersion']}")

    print("\n== liveness and echo (exact numbers, unicode, key order kept)")
    session.call("$/ping")
    session.call("debug/echo", {"big": 18446744073709551615, "text": "caf\u00e9 \u2713", "list": [1, 2.5, None, True]})

    print("\n== errors carry a stable data.kind")
    session.call("configure", {"apiKey": "pk_demo"})
    session.call("registr", {"placement": "campaign_trigger"})
    session.send_raw('{"jsonrpc":"2.0","id":99,"method":')
    session.receive()

    print("\n== a batch: replies to its requests come back as one array; its notification gets none")
    session.send_raw(json.dumps([
        {"jsonrpc": "2.0", "id": "a", "method": "$/ping"},
        {"jsonrpc": "2.0", "method": "some/notification"},
        {"jsonrpc": "2.0", "id": "b", "method": "debug/echo", "params": ["x"]},
    ], separators=(",", ":")))
    session.receive()

    print("\n== shutdown, then exit")
    session.call("shutdown")
    session.send({"jsonrpc": "2.0", "method": "exit"})
    session.process.stdin.close()
    status = session.process.wait(timeout=REPLY_TIMEOUT_S)
    logs = session.process.stderr.read().decode(errors="replace").strip().splitlines()
    print(f"\nbridge exited with status {status} after {time.monotonic() - started:.2f} s; its stderr log:")
    for line in logs:
        print(f"   {line}")
    return 0 if status == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
