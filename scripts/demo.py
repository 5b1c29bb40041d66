#!/usr/bin/env python3
"""Drive superwall-bridge through a short scripted session and print the transcript.

Usage: demo.py PATH_TO_BINARY

A real client over the bridge's stdin and stdout (newline-delimited JSON-RPC 2.0). It does
the handshake, then configures on the embedded demo app ("Pocket Trainer") in a throwaway
data directory. It identifies a user, sets attributes, reads the user and the device, and
resets. The Superwall events the bridge reports to the delegate are printed as they arrive.
It ends with the error answers a wrapper author will meet, a batch, and a clean shutdown.
Every call waits at most a few seconds for its reply.
"""
import json
import select
import shutil
import subprocess
import sys
import tempfile
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
        # How this client answers the bridge's own requests, by method.
        self.handlers = {}

    def send_raw(self, line: str) -> None:
        print(f"\n\u2192 {line}")
        self.process.stdin.write(line.encode() + b"\n")
        self.process.stdin.flush()

    def send(self, message: dict) -> None:
        self.send_raw(json.dumps(message, separators=(",", ":"), ensure_ascii=False))

    def call(self, method: str, params=None):
        """Sends a request and returns its reply, printing notifications that come first."""
        message = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        if params is not None:
            message["params"] = params
        self.next_id += 1
        self.send(message)
        while True:
            reply = self.receive()
            if not isinstance(reply, dict) or ("method" not in reply and reply.get("id") in (message["id"], None)):
                return reply
            if "id" in reply and reply.get("method") in self.handlers:
                self.send({"jsonrpc": "2.0", "id": reply["id"], "result": self.handlers[reply["method"]](reply["params"])})

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
        message = json.loads(line)
        if isinstance(message, dict) and message.get("method") == "delegate/handleSuperwallEvent":
            event = message["params"]["event"]["name"]
            print(f"\u2190 delegate/handleSuperwallEvent  {event}")
        else:
            print(f"\u2190 {line.decode()}")
        return message


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

    data_directory = tempfile.mkdtemp(prefix="superwall-demo-")
    print(f"\n== configure on the embedded demo app, state in {data_directory}")
    reply = session.call("configure", {
        "apiKey": "pk_demo_pocket_trainer",
        "options": {"configSource": {"type": "embedded"}, "dataDirectory": data_directory},
        "device": {"platform": "iOS", "appVersion": "2.4.0", "osVersion": "18.1", "deviceModel": "iPhone16,2", "locale": "en_US"},
    })
    print(f"   status {reply['result']['configurationStatus']}, anonymous user {reply['result']['userId']}")

    print("\n== identify, attributes, the user and the device")
    session.call("identify", {"userId": "runner_042"})
    session.call("setUserAttributes", {"attributes": {"plan": "free", "workouts_completed": 4, "email": "runner@example.com"}})
    session.call("getUserId")
    device = session.call("getDeviceAttributes")["result"]["attributes"]
    print("   device: " + ", ".join(f"{key}={device[key]}" for key in ("platform", "appVersionPadded", "deviceLanguageCode", "daysSinceInstall", "sdkVersion")))
    session.call("setSubscriptionStatus", {"status": {"type": "inactive"}})

    print("\n== a paywall: register, the bridge asks this client to show it, a custom callback, the user closes it")
    shown = {}
    def present(params):
        shown["session"] = params["sessionId"]
        info = params["paywall"]["info"]
        print(f"   (showing {info['identifier']}, {info['featureGatingBehavior']}, experiment {info['experiment']['id']})")
        return {}
    session.handlers["paywall/present"] = present
    session.handlers["paywall/dismiss"] = lambda params: {}
    session.handlers["handler/onCustomCallback"] = lambda params: {"status": "success", "data": {"valid": params["variables"].get("code") == "SUMMER"}}
    session.send({"jsonrpc": "2.0", "id": "register-1", "method": "register", "params": {"placement": "onboarding_complete", "hasFeature": True}})
    while "session" not in shown:
        message = session.receive()
        if isinstance(message, dict) and message.get("method") == "paywall/present":
            session.send({"jsonrpc": "2.0", "id": message["id"], "result": present(message["params"])})
    session.call("paywall/action", {"sessionId": shown["session"], "action": {"type": "requestCallback", "name": "validate_promo_code", "variables": {"code": "SUMMER"}}})
    session.send({"jsonrpc": "2.0", "id": "close-1", "method": "paywall/action", "params": {"sessionId": shown["session"], "action": {"type": "close"}}})
    while True:
        message = session.receive()
        if isinstance(message, dict) and message.get("method") == "paywall/dismiss":
            session.send({"jsonrpc": "2.0", "id": message["id"], "result": {}})
        if isinstance(message, dict) and message.get("id") == "register-1" and "method" not in message:
            print(f"   register answered: outcome {message['result']['outcome']}, featureGranted {message['result']['featureGranted']}")
            break

    print("\n== a placement whose audience does not match skips, and grants the feature")
    reply = session.call("register", {"placement": "workout_shared"})
    print(f"   outcome {reply['result']['outcome']}, featureGranted {reply['result']['featureGranted']}")
    session.call("getPresentationResult", {"placement": "start_workout", "params": {"workout_tier": "pro"}})

    print("\n== a purchase through this client's purchase controller: it sets the status, then answers")
    session.call("setStoreProducts", {"products": [{"productIdentifier": "com.pockettrainer.coach.monthly", "price": 19.99,
                                                     "currencyCode": "USD", "localizedPrice": "$19.99", "period": {"unit": "month"}}]})
    def buy(params):
        product = params["product"]
        print(f"   (the store sells {product['id']} for {product['storeDetails']['localizedPrice']})")
        entitlements = [{"id": e["id"], "latestProductId": product["productIdentifier"]} for e in product["entitlements"]]
        session.send({"jsonrpc": "2.0", "id": "status-after-purchase", "method": "setSubscriptionStatus",
                      "params": {"status": {"type": "active", "entitlements": entitlements}}})
        return {"type": "purchased", "transaction": {"transactionId": "demo-store-1"}}
    session.handlers["purchaseController/purchase"] = buy
    reply = session.call("purchase", {"productId": "com.pockettrainer.coach.monthly"})
    print(f"   purchase: {reply['result']['result']['type']}")
    active = session.call("getEntitlements")["result"]["active"]
    print("   active entitlements: " + ", ".join(e["id"] for e in active))
    info = session.call("getCustomerInfo")["result"]
    print(f"   customer info: {len(info['subscriptions'])} subscription(s), transaction {info['subscriptions'][0]['transactionId']}")
    session.call("reset")

    print("\n== liveness and echo (exact numbers, unicode, key order kept)")
    session.call("$/ping")
    session.call("debug/echo", {"big": 18446744073709551615, "text": "caf\u00e9 \u2713", "list": [1, 2.5, None, True]})

    print("\n== errors carry a stable data.kind")
    session.call("register", {"placement": "paywall_open"})
    session.call("identify", {"userId": "   "})
    session.call("registr", {"placement": "start_workout"})
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
    shutil.rmtree(data_directory, ignore_errors=True)
    logs = session.process.stderr.read().decode(errors="replace").strip().splitlines()
    print(f"\nbridge exited with status {status} after {time.monotonic() - started:.2f} s; its stderr log:")
    for line in logs:
        print(f"   {line}")
    return 0 if status == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
