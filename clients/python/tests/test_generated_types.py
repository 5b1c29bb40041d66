"""scripts/generate/generate_types.py: the clients' protocol types come from protocol/openrpc.json, and a
spec changed without regenerating is caught, naming the command to run."""

from __future__ import annotations

import copy
import importlib.util
import json
import sys
from pathlib import Path

import pytest
from types import ModuleType

ROOT = Path(__file__).resolve().parents[3]


def generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("generate_types", ROOT / "scripts" / "generate" / "generate_types.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_committed_types_of_both_clients_are_what_the_spec_gives() -> None:
    module = generator()
    spec = json.loads((ROOT / "protocol" / "openrpc.json").read_text(encoding="utf-8"))
    assert module.typescript(spec) == module.TYPESCRIPT.read_text(encoding="utf-8")
    assert module.python(spec) == module.PYTHON.read_text(encoding="utf-8")
    assert module.python_wire(spec) == module.PYTHON_WIRE.read_text(encoding="utf-8")
    assert module.main(["--check"]) == 0


@pytest.mark.skipif(sys.version_info < (3, 11), reason="the TypedDicts use typing.Required, for type checkers")
def test_every_method_has_its_wire_params_and_result_in_python() -> None:
    # The TypedDicts are for type checkers (under TYPE_CHECKING, so the module imports on Python
    # 3.9): run the module's text with them defined, as a type checker reads it.
    import types

    import superwall_bridge.wire_types as generated

    text = Path(generated.__file__).read_text(encoding="utf-8").replace("if TYPE_CHECKING:", "if True:")
    wire_types = types.ModuleType("wire_types_as_checked")
    exec(compile(text, generated.__file__, "exec"), wire_types.__dict__)
    spec = json.loads((ROOT / "protocol" / "openrpc.json").read_text(encoding="utf-8"))
    module = generator()
    for method in spec["methods"]:
        params = getattr(wire_types, f"{module.pascal(method['name'])}Params")
        required = {param["name"] for param in method.get("params", []) if param.get("required")}
        assert params.__required_keys__ == required, method["name"]
        if "result" in method and not method.get("x-notification"):
            assert hasattr(wire_types, module.result_name(spec, method["name"])), method["name"]
    assert set(wire_types.CLIENT_TO_BRIDGE) | set(wire_types.BRIDGE_TO_CLIENT_REQUESTS) | set(wire_types.BRIDGE_TO_CLIENT_NOTIFICATIONS) == {
        method["name"] for method in spec["methods"]}


def test_the_python_models_are_generated_with_their_wire_names_and_helpers() -> None:
    from superwall_bridge import PaywallInfo, PurchaseResult, StoreDetails, StorePeriod, SubscriptionStatus, _protocol

    assert PaywallInfo.__module__ == _protocol.__name__
    info = PaywallInfo.from_wire({"identifier": "p", "featureGatingBehavior": "gated", "presentedByPlacementAt": "2026-11-23T10:00:00.000Z"})
    assert info.feature_gating_behavior == "gated"
    assert info.presented_by_placement_at is not None and info.presented_by_placement_at.year == 2026
    assert SubscriptionStatus.active("pro").to_wire() == {"type": "active", "entitlements": [{"id": "pro", "type": "serviceLevel", "isActive": True}]}
    assert StoreDetails("p", price=1.5, period=StorePeriod("month")).to_wire() == {
        "productIdentifier": "p", "price": 1.5, "period": {"unit": "month", "count": 1}}
    assert PurchaseResult.from_wire({"type": "failed", "error": {"message": "declined"}}).error == "declined"


def test_a_field_changed_in_the_spec_changes_the_types_and_fails_the_check(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    module = generator()
    spec = json.loads((ROOT / "protocol" / "openrpc.json").read_text(encoding="utf-8"))
    edited = copy.deepcopy(spec)
    edited["components"]["schemas"]["StorePeriod"]["properties"]["count"] = {"type": "string"}
    assert module.typescript(edited) != module.typescript(spec)
    assert module.python(edited) != module.python(spec)
    module.SPEC = tmp_path / "openrpc.json"
    module.SPEC.write_text(json.dumps(edited), encoding="utf-8")
    assert module.main(["--check"]) == 1
    assert "python3 scripts/generate/generate_types.py" in capsys.readouterr().err


def test_every_method_has_a_direction_and_every_error_kind_is_listed() -> None:
    module = generator()
    spec = json.loads((ROOT / "protocol" / "openrpc.json").read_text(encoding="utf-8"))
    text = module.typescript(spec)
    for method in spec["methods"]:
        assert json.dumps(method["name"]) + ": {" in text, method["name"]
    for kind in spec["components"]["schemas"]["ErrorKind"]["enum"]:
        assert json.dumps(kind) in text.split("export const ERROR_KINDS")[1].split("\n")[0]
