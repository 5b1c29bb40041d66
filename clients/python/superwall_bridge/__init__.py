"""Python client for superwall-bridge, the Superwall SDK core served as JSON-RPC 2.0 over stdio.

    import asyncio
    from superwall_bridge import Superwall

    async def main():
        async with Superwall.start() as sw:
            await sw.configure("pk_demo", options={"configSource": {"type": "embedded"}})
            result = await sw.register("workout_shared")
            print(result.feature_granted)

    asyncio.run(main())
"""

__version__ = "0.1.0"

from .callbacks import PaywallPresenter, PresentationHandler, PurchaseController, SuperwallDelegate, TestModeUI  # noqa: E402
from .client import DEFAULT_TIMEOUT, INTERACTIVE_TIMEOUT, PROTOCOL_VERSION, Superwall, find_bridge  # noqa: E402
from .connection import Connection, RemoteError  # noqa: E402
from .errors import *  # noqa: E402,F401,F403
from .models import *  # noqa: E402,F401,F403
from .sync import SyncSuperwall  # noqa: E402

__all__ = [
    "Superwall", "SyncSuperwall", "SuperwallDelegate", "PurchaseController", "PaywallPresenter", "PresentationHandler",
    "TestModeUI",
    "Connection", "RemoteError", "find_bridge", "DEFAULT_TIMEOUT", "INTERACTIVE_TIMEOUT", "PROTOCOL_VERSION",
]
