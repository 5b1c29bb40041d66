"""docs/config-format.md's "Placement counts in a rule", run by `make test`: a rule that reads
`computed.placementsInDay("export_pdf")`, and a day's window that includes its start.

Usage: python3 computed_window.py [BRIDGE]"""
import asyncio
import sys
import tempfile
from pathlib import Path

from superwall_bridge import Superwall

RULE = 'computed.placementsInDay("export_pdf") >= 3'


async def matches(sw: Superwall) -> bool:
    return bool((await sw.evaluate_expression(RULE))["value"]["value"])


async def main() -> None:
    async with Superwall.start(sys.argv[1] if len(sys.argv) > 1 else None) as sw:
        config = Path(__file__).with_name("minimal-config.json")
        await sw.configure("pk_docs", options={"configSource": {"type": "file", "path": str(config)},
                                               "dataDirectory": tempfile.mkdtemp(), "clock": "manual"})
        for _ in range(3):
            await sw.register("export_pdf")
        counted = [await matches(sw)]
        await sw.advance_clock(86_400)           # a day later to the millisecond: still within the day
        counted.append(await matches(sw))
        await sw.advance_clock(1)                # one more second: the exports leave the window
        counted.append(await matches(sw))
        print(counted)
        assert counted == [True, True, False], counted


asyncio.run(main())
