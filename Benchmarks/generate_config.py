#!/usr/bin/env python3
"""Write a large static config in the real wire format, for `make bench`.

Usage: generate_config.py OUT.json [CAMPAIGNS] [PAYWALLS]

Each campaign is one placement with two audiences (a CEL rule with computed properties and
an occurrence limit, then a catch-all), and each audience splits between two paywalls and a
holdout. One more placement, `bench_gate`, has twenty audiences none of which matches a
free user (the presentation round trips of B9). Paywalls carry three products each; the app has 60 products over 3 entitlements.
Deterministic, so every run measures the same bytes.
"""
import base64
import json
import sys


def main() -> None:
    out = sys.argv[1]
    campaigns = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
    paywalls = int(sys.argv[3]) if len(sys.argv) > 3 else 2000
    entitlements = ["pro", "coach", "family"]
    product_ids = [f"com.example.bench.product{i}" for i in range(60)]

    def product(index, reference=None):
        p = {"store_product": {"store": "APP_STORE", "product_identifier": product_ids[index % len(product_ids)]},
             "entitlements": [{"identifier": entitlements[index % 3], "type": "SERVICE_LEVEL"}]}
        if reference:
            p["reference_name"] = reference
        return p

    substitutions = base64.b64encode(json.dumps([{"event_name": "template_substitutions", "substitutions": [
        {"key": f"Line {i}", "value": f"Benefit number {i} of this plan"} for i in range(12)]}]).encode()).decode()
    paywall_list = []
    for i in range(paywalls):
        url = f"https://paywalls.example.com/bench/{i}"
        paywall_list.append({
            "id": str(50000 + i), "identifier": f"bench-paywall-{i}", "name": f"Bench paywall {i}",
            "cache_key": f"bench-{i}-v1", "build_id": "bench-build", "url": url,
            "url_config": {"endpoints": [{"url": url, "timeout_ms": 15000, "percentage": 100}], "max_attempts": 3},
            "paywalljs_event": substitutions, "presentation_style_v3": {"type": "MODAL"}, "presentation_delay": 0,
            "background_color_hex": "#FFFFFF", "feature_gating": "GATED" if i % 2 else "NON_GATED",
            "products_v2": [product(i, "primary"), product(i + 1, "secondary"), product(i + 2, "tertiary")],
            "is_scroll_enabled": True,
        })
    triggers = []
    for c in range(campaigns):
        def audience(a, rule):
            first, second = (2 * c + a) % paywalls, (2 * c + a + 1) % paywalls
            entry = {"experiment_group_id": str(10000 + c), "experiment_id": f"{c}-{a}", "expression_cel": rule,
                     "preload": {"behavior": "IF_TRUE"},
                     "variants": [{"variant_id": f"{c}-{a}-h", "variant_type": "HOLDOUT", "percentage": 10},
                                  {"variant_id": f"{c}-{a}-1", "variant_type": "TREATMENT", "percentage": 45, "paywall_identifier": f"bench-paywall-{first}"},
                                  {"variant_id": f"{c}-{a}-2", "variant_type": "TREATMENT", "percentage": 45, "paywall_identifier": f"bench-paywall-{second}"}]}
            if rule:
                entry["occurrence"] = {"key": f"occ-{c}", "max_count": 3, "interval": {"type": "MINUTES", "minutes": 1440}}
                entry["computed_properties"] = [{"type": "DAYS_SINCE", "event_name": "app_install"}]
            return entry
        triggers.append({"event_name": f"placement_{c}", "trigger_version": "V2", "rules": [
            audience(0, f'user.plan == "free" && device.daysSince_app_install >= {c % 7} && params.level > {c % 10}'),
            audience(1, None)]})
    # B9's placement: twenty audiences that each read the user, the params and the device, so
    # a register with {"level": 5} for a free user evaluates all twenty and matches none.
    gate_rules = []
    for a in range(20):
        gate_rules.append({
            "experiment_group_id": "90000", "experiment_id": f"gate-{a}",
            "expression_cel": f'user.plan == "pro_{a}" || (params.level > {100 + a} && device.platform == "iOS")',
            "preload": {"behavior": "IF_TRUE"},
            "occurrence": {"key": f"gate-occ-{a}", "max_count": 5, "interval": {"type": "MINUTES", "minutes": 60}},
            "variants": [{"variant_id": f"gate-{a}-h", "variant_type": "HOLDOUT", "percentage": 10},
                         {"variant_id": f"gate-{a}-t", "variant_type": "TREATMENT", "percentage": 90,
                          "paywall_identifier": f"bench-paywall-{a}"}]})
    triggers.append({"event_name": "bench_gate", "trigger_version": "V2", "rules": gate_rules})
    config = {
        "build_id": "bench-build", "log_level": 10, "app_session_timeout_ms": 3600000,
        "toggles": [{"key": "enable_config_refresh_v2", "enabled": True}],
        "disable_preload": {"all": False, "triggers": []}, "localization": {"locales": [{"locale": "en"}]},
        "trigger_options": triggers, "paywall_responses": paywall_list,
        "products_v3": [product(i) for i in range(len(product_ids))],
    }
    with open(out, "w") as handle:
        json.dump(config, handle, separators=(",", ":"))


if __name__ == "__main__":
    main()
