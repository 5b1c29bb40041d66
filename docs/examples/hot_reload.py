#!/usr/bin/env python3
"""What an editor's hot reload sees: a watched config file edited while the bridge runs.

docs/hot-reload.md walks through it. `make test` runs it:

    SUPERWALL_BRIDGE=path/to/superwall-bridge python3 docs/examples/hot_reload.py
"""

from __future__ import annotations

import asyncio
import json
import tempfile
from pathlib import Path

from superwall_bridge import ConfigRefresh, Superwall, SuperwallDelegate

EXAMPLE = Path(__file__).with_name("minimal-config.json")


class Editor(SuperwallDelegate):
    """Hears every refresh, however it started: here, each save of the file."""

    def __init__(self) -> None:
        self.refreshes: asyncio.Queue[ConfigRefresh] = asyncio.Queue()

    def config_did_refresh(self, refresh: ConfigRefresh) -> None:
        self.refreshes.put_nowait(refresh)


async def main() -> None:
    folder = Path(tempfile.mkdtemp(prefix="hot-reload-"))
    config = json.loads(EXAMPLE.read_text())
    path = folder / "config.json"
    path.write_text(json.dumps(config, indent=2))
    editor = Editor()
    async with await Superwall.start(delegate=editor) as sw:
        await sw.configure("pk_editor", options={
            "configSource": {"type": "file", "path": str(path), "watch": True},
            "dataDirectory": str(folder / "data"),
            # Each refresh also says which of these placements now decide differently.
            "explainOnRefresh": ["export_pdf"],
        })
        await sw.set_user_attributes({"exports_this_month": 5})

        # An edit: the rule now asks for ten exports, and a second placement appears.
        rules = config["trigger_options"][0]["rules"]
        rules[0]["expression_cel"] = "user.exports_this_month >= 10"
        config["trigger_options"].append({"event_name": "share_pdf", "rules": []})
        path.write_text(json.dumps(config, indent=2))
        refresh = await asyncio.wait_for(editor.refreshes.get(), 20)
        print("refreshed:", refresh.refreshed, "build", refresh.build_id)
        print("placements added:", refresh.placements.added, "experiments changed:", refresh.experiments.changed)
        print("warnings:", [f"{w.path}: {w.message}" for w in refresh.warnings])
        print("export_pdf now:", [change.after.outcome for change in refresh.decision_changes])
        assert refresh.placements.added == ["share_pdf"] and refresh.experiments.changed == ["exp-export"]
        assert any(w.path == "$.trigger_options[1].rules" for w in refresh.warnings), "a placement with no campaign is a warning"
        assert [change.after.outcome for change in refresh.decision_changes] == ["noAudienceMatch"]

        # A rule that does not compile: the config is still used, and the editor is told where.
        rules[0]["expression_cel"] = "user.exports_this_month >="
        path.write_text(json.dumps(config, indent=2))
        refresh = await asyncio.wait_for(editor.refreshes.get(), 20)
        print("warnings:", [f"{w.path}: {w.message}" for w in refresh.warnings][:1])
        assert refresh.refreshed and refresh.warnings[0].path == "$.trigger_options[0].rules[0].expression_cel"

        # Three misspelt keys: ignored, as SuperwallKit ignores them (the audience now has no
        # rule and matches everyone), and each named with the key meant.
        rules[0]["expresion_cel"] = rules[0].pop("expression_cel")
        config["trigger_optoins"] = []
        style = config["paywall_responses"][0]["presentation_style_v3"]
        style["typ"] = style.pop("type")
        path.write_text(json.dumps(config, indent=2))
        refresh = await asyncio.wait_for(editor.refreshes.get(), 20)
        typos = [f"{w.path}: {w.message}" for w in refresh.warnings if w.message.startswith("unknown key")]
        print("typos:", typos)
        assert typos == [
            '$.trigger_optoins: unknown key "trigger_optoins" is ignored; did you mean "trigger_options"?',
            '$.trigger_options[0].rules[0].expresion_cel: unknown key "expresion_cel" is ignored; '
            'did you mean "expression_cel"?',
            '$.paywall_responses[0].presentation_style_v3.typ: unknown key "typ" is ignored; did you mean "type"?',
        ], typos

        # A save halfway through typing: not JSON. The config in use stays, and the error says where.
        path.write_text(json.dumps(config, indent=2)[:-40])
        refresh = await asyncio.wait_for(editor.refreshes.get(), 20)
        assert refresh.error is not None
        print("kept build", refresh.build_id, "because:", refresh.error.message)
        assert not refresh.refreshed and refresh.error.data["kind"] == "invalidConfig" and "line" in refresh.error.data


if __name__ == "__main__":
    asyncio.run(asyncio.wait_for(main(), 60))
