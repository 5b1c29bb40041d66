"""protocol/config.schema.json and ``superwall-bridge validate`` agree on every config in the
repository: a config the schema accepts is valid, one with a problem is refused by both, and a
misspelt key is an error to the schema (an editor flags it) and a warning to ``validate``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from conftest import PROTOCOL

REPOSITORY = PROTOCOL.parent
CONFIGS = sorted([REPOSITORY / "config" / "demo.json", REPOSITORY / "docs" / "examples" / "minimal-config.json",
                  REPOSITORY / "Tests" / "SuperwallCoreTests" / "Fixtures" / "superwall-config-sample.json",
                  *(PROTOCOL / "conformance" / "configs").glob("*.json")])
VALIDATOR = jsonschema.Draft202012Validator(json.loads((PROTOCOL / "config.schema.json").read_text()))


def validate(bridge: str, path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([bridge, "validate", str(path)], capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("path", CONFIGS, ids=lambda path: path.name)
def test_the_schema_and_validate_agree_on_each_config_in_the_repository(bridge: str, path: Path) -> None:
    schema_errors = [error.message for error in VALIDATOR.iter_errors(json.loads(path.read_text()))]
    validated = validate(bridge, path)
    assert (not schema_errors) == (validated.returncode == 0), (schema_errors[:3], validated.stdout[-500:])


def test_the_schema_and_validate_agree_on_the_benchmark_config(bridge: str, tmp_path: Path) -> None:
    path = tmp_path / "bench-config.json"
    subprocess.run([sys.executable, str(REPOSITORY / "Benchmarks" / "generate_config.py"), str(path), "100", "200"],
                   check=True, timeout=60)
    assert not [error.message for error in VALIDATOR.iter_errors(json.loads(path.read_text()))][:3]
    assert validate(bridge, path).returncode == 0


def test_a_misspelt_key_is_a_schema_error_and_a_validate_warning(bridge: str, tmp_path: Path) -> None:
    config: dict[str, Any] = json.loads((REPOSITORY / "config" / "demo.json").read_text())
    audience = config["trigger_options"][0]["rules"][0]
    audience["expresion_cel"] = audience.pop("expression_cel", "true")
    path = tmp_path / "typo.json"
    path.write_text(json.dumps(config))
    errors = list(VALIDATOR.iter_errors(config))
    assert [list(error.absolute_path) for error in errors] == [["trigger_options", 0, "rules", 0]]
    assert "'expresion_cel' was unexpected" in errors[0].message
    validated = validate(bridge, path)
    assert validated.returncode == 0
    assert 'warning: unknown key "expresion_cel" is ignored; did you mean "expression_cel"?' in validated.stdout


def test_a_schema_pointer_in_a_config_is_neither_an_error_nor_a_warning(bridge: str, tmp_path: Path) -> None:
    config = {"$schema": "../protocol/config.schema.json", **json.loads((REPOSITORY / "config" / "demo.json").read_text())}
    path = tmp_path / "pointed.json"
    path.write_text(json.dumps(config))
    assert list(VALIDATOR.iter_errors(config)) == []
    assert "unknown key" not in validate(bridge, path).stdout
