"""The paywall page in a second web view, Qt WebEngine, hosted with the shim the docs give
(docs/paywall-page-messages.md, "Hosting the page in any web view"): qt_host.py, run by
Debian's Python (which has PyQt5) under Xvfb, renders the store's price on the stand-in page
and buys through the page's own button with the host's purchase controller."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
BRIDGE = os.environ.get("SUPERWALL_BRIDGE", str(ROOT / ".build" / "debug" / "superwall-bridge"))
SYSTEM_PYTHON = "/usr/bin/python3"


def test_the_docs_shim_hosts_the_paywall_page_in_qt_webengine_and_its_purchase_button_buys() -> None:
    xvfb_run = shutil.which("xvfb-run")
    assert xvfb_run is not None, "xvfb-run is needed (apt-get install -y xvfb xauth)"
    environment = {**os.environ, "PYTHONPATH": str(ROOT / "clients" / "python"), "SUPERWALL_BRIDGE": BRIDGE}
    finished = subprocess.run([xvfb_run, "-a", SYSTEM_PYTHON, str(HERE / "qt_host.py")], capture_output=True, text=True,
                              timeout=300, env=environment)
    lines = finished.stdout.strip().splitlines()
    assert lines, f"qt_host.py printed nothing (exit {finished.returncode}): {finished.stderr[-2000:]}"
    outcome = json.loads(lines[-1])
    assert outcome == {"rendered": True, "purchased": ["com.pockettrainer.pro.annual"], "featureGranted": True,
                       "dismissal": "purchased", "pinged": True}, (outcome, finished.stderr[-2000:])
    assert finished.returncode == 0
