"""Test mode's choices through a TestModeUI, against the real bridge."""

from __future__ import annotations

from pathlib import Path

from superwall_bridge import SyncSuperwall
from superwall_bridge.callbacks import TestModePurchaseOutcome
from superwall_bridge.models import Product

COACH = "com.pockettrainer.coach.monthly"


class ScriptedChoices:
    """Answers test mode's questions from lists, recording what it was asked."""

    def __init__(self, outcomes: list[TestModePurchaseOutcome], restores: list[list[str] | None]) -> None:
        self.outcomes = outcomes
        self.restores = restores
        self.asked: list[str] = []
        self.offered: list[list[str]] = []

    def choose_purchase_outcome(self, product: Product) -> TestModePurchaseOutcome:
        self.asked.append(product.id)
        return self.outcomes.pop(0)

    def choose_restored_entitlements(self, available: list[str]) -> list[str] | None:
        self.offered.append(available)
        return self.restores.pop(0)


def test_the_person_testing_chooses_purchase_outcomes_and_restored_entitlements(tmp_path: Path) -> None:
    choices = ScriptedChoices(["abandoned", "failed", "purchased"], [["pro"], None])
    with SyncSuperwall.start(test_mode_ui=choices) as sw:
        sw.configure("pk_test", options={"configSource": {"type": "embedded"}, "testModeBehavior": "always",
                                         "dataDirectory": str(tmp_path / "data")})
        assert sw.purchase(COACH).type == "cancelled"
        failed = sw.purchase(COACH)
        assert failed.type == "failed" and failed.error == "Simulated purchase failure (test mode)."
        assert sw.purchase(COACH).type == "purchased"
        assert choices.asked == [COACH] * 3
        assert sorted(e.id for e in sw.subscription_status().entitlements) == ["coach", "pro"]

        assert sw.restore_purchases().type == "restored"
        assert "coach" in choices.offered[0]
        assert [e.id for e in sw.subscription_status().entitlements] == ["pro"]
        assert sw.restore_purchases().type == "failed"  # cancelled
        assert [e.id for e in sw.subscription_status().entitlements] == ["pro"]
