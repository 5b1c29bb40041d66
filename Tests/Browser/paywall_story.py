"""What both web view hosts' tests share: the config with a placement that always shows the
gated paywall, and the host's store."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from superwall_bridge import PaywallInfo, Product, PurchaseResult, RestorationResult, SubscriptionStatus, Superwall

ANNUAL = "com.pockettrainer.pro.annual"


def demo_config_with_unlock_placement(bridge: str, path: Path) -> Path:
    """Writes the embedded demo config to `path`, with `unlock_pro`, which always shows its gated paywall."""
    config = json.loads(subprocess.run([bridge, "demo-config"], check=True, capture_output=True, text=True).stdout)
    config["trigger_options"].append({"event_name": "unlock_pro", "trigger_version": "V2", "rules": [{
        "experiment_id": "browser-1", "experiment_group_id": "browser", "expression_cel": None, "preload": {"behavior": "IF_TRUE"},
        "variants": [{"variant_id": "browser-v", "variant_type": "TREATMENT", "percentage": 100,
                      "paywall_identifier": "pro-workouts-gated"}]}]})
    path.write_text(json.dumps(config))
    return path


class StoreController:
    """The app's store: a purchase succeeds and unlocks "pro"."""

    def __init__(self) -> None:
        self.superwall: Superwall | None = None
        self.purchased: list[str] = []

    async def purchase(self, product: Product, paywall_info: PaywallInfo | None) -> PurchaseResult:
        self.purchased.append(product.product_identifier)
        assert self.superwall is not None
        await self.superwall.set_subscription_status(SubscriptionStatus.active("pro"))
        return PurchaseResult.purchased()

    async def restore_purchases(self) -> RestorationResult:
        return RestorationResult.failed("nothing to restore")
