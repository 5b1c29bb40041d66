"""The web view shim as docs/paywall-page-messages.md gives it ("Hosting the page in any web
view"): every host here loads it from the docs, so the docs' own text is what the tests run."""

from __future__ import annotations

import re
from pathlib import Path

DOCS = Path(__file__).resolve().parents[2] / "docs" / "paywall-page-messages.md"
HEADING = "## Hosting the page in any web view"

#: Where the shim keeps what the page posted when no native `SuperwallHost` object is there.
OUTBOX = "window.__superwallOutbox"


def docs_shim() -> str:
    """The first JavaScript block under the docs' heading."""
    text = DOCS.read_text()
    section = text[text.index(HEADING):]
    found = re.search(r"```js\n(.*?)```", section, re.S)
    if found is None:
        raise AssertionError(f"{DOCS} has no ```js block under {HEADING!r}")
    return found.group(1)


#: Takes what the page posted since the last call, in order.
TAKE_OUTBOX = f"return {OUTBOX} ? {OUTBOX}.splice(0) : [];"
