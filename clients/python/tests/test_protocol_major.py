"""A bridge of another protocol major is refused at initialize, naming both versions."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

from superwall_bridge import Superwall
from superwall_bridge.errors import UnsupportedProtocolVersionError

# A stand-in bridge that answers initialize as a bridge of protocol 2.0 would.
FUTURE_BRIDGE = '''#!{python}
import json, sys
for line in sys.stdin:
    message = json.loads(line)
    if message.get("method") == "initialize":
        print(json.dumps({{"jsonrpc": "2.0", "id": message["id"], "result": {{
            "protocolVersion": "2.0", "server": {{"name": "superwall-bridge", "version": "9.0.0"}},
            "sdkVersion": "9", "methods": []}}}}), flush=True)
'''


def test_a_bridge_of_another_protocol_major_fails_initialize_naming_both(tmp_path: Path) -> None:
    bridge = tmp_path / "future-bridge"
    bridge.write_text(FUTURE_BRIDGE.format(python=sys.executable))
    bridge.chmod(0o755)
    with pytest.raises(UnsupportedProtocolVersionError, match=r"speaks protocol 1\.0 .* protocol 2\.0") as raised:
        asyncio.run(asyncio.wait_for(Superwall.launch(bridge), 30))
    assert raised.value.data == {"client": "1.0", "bridge": "2.0"}
