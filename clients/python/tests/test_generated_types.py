"""scripts/generate_types.py: the clients' protocol types come from protocol/openrpc.json, and a
spec changed without regenerating is caught, naming the command to run."""

from __future__ import annotations

import copy
import importlib.util
import json
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[3]


def generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("generate_types", ROOT / "scripts" / "generate_types.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_committed_typescript_types_are_what_the_spec_gives() -> None:
    module = generator()
    spec = json.loads((ROOT / "protocol" / "openrpc.json").read_text(encoding="utf-8"))
    assert module.typescript(spec) == module.TYPESCRIPT.read_text(encoding="utf-8")
    assert module.main(["--check"]) == 0


def test_a_field_changed_in_the_spec_changes_the_types_and_fails_the_check(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    module = generator()
    spec = json.loads((ROOT / "protocol" / "openrpc.json").read_text(encoding="utf-8"))
    edited = copy.deepcopy(spec)
    edited["components"]["schemas"]["StorePeriod"]["properties"]["count"] = {"type": "string"}
    assert module.typescript(edited) != module.typescript(spec)
    module.SPEC = tmp_path / "openrpc.json"
    module.SPEC.write_text(json.dumps(edited), encoding="utf-8")
    assert module.main(["--check"]) == 1
    assert "python3 scripts/generate_types.py" in capsys.readouterr().err


def test_every_method_has_a_direction_and_every_error_kind_is_listed() -> None:
    module = generator()
    spec = json.loads((ROOT / "protocol" / "openrpc.json").read_text(encoding="utf-8"))
    text = module.typescript(spec)
    for method in spec["methods"]:
        assert json.dumps(method["name"]) + ": {" in text, method["name"]
    for kind in spec["components"]["schemas"]["ErrorKind"]["enum"]:
        assert json.dumps(kind) in text.split("export const ERROR_KINDS")[1].split("\n")[0]
