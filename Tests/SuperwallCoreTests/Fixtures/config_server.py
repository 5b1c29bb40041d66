#!/usr/bin/env python3
"""A scripted stand-in for the Superwall API, on 127.0.0.1, for the http config source tests.

Usage: config_server.py PLAN_PATH LOG_PATH

PLAN_PATH holds a JSON list of steps, served one per GET /api/v1/static_config in order (the last
repeats): {"status": int, "body": str, "delay_ms": int}; or an object {"get": [steps],
"post": [steps], "paths": {path: step}} whose "post" steps answer the POSTs
(confirm_assignments, ...) the same way, and whose "paths" answer other GETs by path
(/api/v1/assignments, ...; a path ending in "*" matches every path it begins), each with a
step or a list of steps served in order (the last repeats).
Every request is appended to LOG_PATH as a JSON line {method, path, query, headers, body}. The chosen port is printed on the first line
of stdout. The test ends it with SIGTERM; it also exits when its parent does.
"""
import json
import os
import signal
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

# A child spawned from one of the test process's worker threads inherits their blocked
# signals: take SIGTERM back.
signal.pthread_sigmask(signal.SIG_SETMASK, [])


def exit_with_the_test_process(parent):
    """Ends this server once the test process has ended, however it ended.

    Not PR_SET_PDEATHSIG: it fires when the spawning *thread* ends, and the test process's
    worker threads end whenever they have been idle a while, which killed servers mid-test.
    """
    while os.getppid() == parent:
        time.sleep(0.5)
    os._exit(0)


threading.Thread(target=exit_with_the_test_process, args=(os.getppid(),), daemon=True).start()
with open(sys.argv[1]) as plan_file:
    plan = json.load(plan_file)
if isinstance(plan, list):
    plan = {"get": plan, "post": [{"status": 200, "body": "{}"}]}
log_path = sys.argv[2]
lock = threading.Lock()
served = {"GET": 0, "POST": 0}
served_paths = {}


def log(method, url, headers, body):
    with lock:
        with open(log_path, "a") as log_file:
            log_file.write(json.dumps({"method": method, "path": url.path, "query": url.query, "headers": headers, "body": body}) + "\n")


def next_step(method, url, headers, body):
    with lock:
        steps = plan["get" if method == "GET" else "post"]
        step = steps[min(served[method], len(steps) - 1)]
        served[method] += 1
    log(method, url, headers, body)
    return step


def path_step(path):
    """The "paths" step answering a request for path: its own, else the longest prefix ending in "*"."""
    paths = plan.get("paths", {})
    prefixes = [key for key in paths if key.endswith("*") and path.startswith(key[:-1])]
    key = path if path in paths else max(prefixes, key=len) if prefixes else None
    if key is None:
        return None
    steps = paths[key] if isinstance(paths[key], list) else [paths[key]]
    with lock:
        index = served_paths.get(key, 0)
        served_paths[key] = index + 1
    return steps[min(index, len(steps) - 1)]


class Handler(BaseHTTPRequestHandler):
    def do_GET(self):
        url = urllib.parse.urlsplit(self.path)
        step = path_step(url.path)
        if step is not None:
            log("GET", url, dict(self.headers), None)
            self.answer(step)
            return
        if url.path != "/api/v1/static_config":
            # Logged, answered 404, and the config's steps are left for the config.
            log("GET", url, dict(self.headers), None)
            self.send_response(404)
            self.end_headers()
            return
        self.answer(next_step("GET", url, dict(self.headers), None))

    def do_POST(self):
        url = urllib.parse.urlsplit(self.path)
        length = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(length).decode("utf-8", "replace")
        step = path_step(url.path)
        if step is not None:
            log("POST", url, dict(self.headers), body)
            self.answer(step)
            return
        self.answer(next_step("POST", url, dict(self.headers), body))

    def answer(self, step):
        time.sleep(step.get("delay_ms", 0) / 1000)
        body = step.get("body", "").encode() * max(1, step.get("body_repeat", 1))
        try:
            self.send_response(step["status"])
            self.send_header("Content-Type", "application/json")
            if step.get("chunked"):
                # Streamed with no declared length, a chunk at a time, as a body of unknown size.
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                for start in range(0, len(body), 65536):
                    chunk = body[start:start + 65536]
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                self.wfile.write(b"0\r\n\r\n")
            else:
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def log_message(self, *args):
        pass


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
print(server.server_address[1], flush=True)
server.serve_forever()
