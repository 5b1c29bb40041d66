import type { AudienceCheck, ExpressionTrace, PresentationDecision } from "./generated/protocol";

/** A presentation's decision record as text: a line per gate (✓ passed, ✗ stopped it, with
 * its wait), the outcome, then, for a complete record, each audience's rule as the tree of the
 * values its parts took, as `superwall-bridge explain` prints it. */
export function formatDecision(decision: PresentationDecision): string {
    const lines = [`#${decision.sequence} ${decision.call} ${decision.placement}`];
    for (const gate of decision.gates) {
        const waited = gate.waitedMs === undefined ? "" : ` [waited ${gate.waitedMs} ms]`;
        lines.push(`  ${gate.passed ? "✓" : "✗"} ${gate.gate}: ${gate.detail}${waited}`);
    }
    lines.push(`  outcome: ${decision.outcome}${decision.reason ? ` (${decision.reason})` : ""}`);
    const audiences = decision.audiences ?? [];
    audiences.forEach((audience, index) => {
        for (const line of audienceLines(audience, index + 1, audiences.length)) lines.push(`  ${line}`);
    });
    return `${lines.join("\n")}\n`;
}

/** The gate of that name (the first, for `paywallOnScreen`, which may run twice). */
export function decisionGate(decision: PresentationDecision, name: PresentationDecision["gates"][number]["gate"]) {
    return decision.gates.find((gate) => gate.gate === name);
}

function audienceLines(audience: AudienceCheck, number: number, count: number): string[] {
    const state = !audience.evaluated ? "not evaluated: an earlier audience matched" : audience.matched ? "matched" : "no match";
    const lines = [`audience ${number} of ${count}, experiment ${audience.experimentId}: ${state}`];
    if (!audience.evaluated) return audience.expression ? [...lines, `  rule: ${audience.expression}`] : lines;
    if (audience.compileError !== undefined) {
        lines.push(`  rule: ${audience.expression ?? ""}`, `    does not compile: ${audience.compileError}`);
    } else if (audience.rule === null) {
        lines.push("  rule: none (everyone matches)");
    } else {
        lines.push(`  rule: ${nodeText(audience.rule.tree)}`, ...childLines(audience.rule.tree, "    "));
    }
    const occurrence = audience.occurrence;
    if (occurrence) {
        const window = occurrence.intervalMinutes === null ? "ever" : `per ${occurrence.intervalMinutes} min`;
        const verdict = occurrence.allowsAnother ? "allows another" : "limit reached";
        lines.push(`  occurrence ${occurrence.key}: ${occurrence.storedCount} of at most ${occurrence.maxCount} ${window}, ${verdict}`);
    }
    return lines;
}

/** `text → value`, as `superwall-bridge explain` prints a node (no value for a literal). */
function nodeText(node: ExpressionTrace): string {
    const repeated = node.evaluations !== undefined && node.evaluations > 1 ? ` (last of ${node.evaluations})` : "";
    if (!node.evaluated) return `${node.text}  (not evaluated)`;
    if (node.error !== undefined) return `${node.text}  ✗ ${node.error}`;
    let valueText = node.valueText;
    const tagged = node.value as { type?: string; value?: unknown } | undefined;
    if (tagged?.type === "map" && tagged.value !== null && typeof tagged.value === "object") {
        valueText = `{${Object.keys(tagged.value).length} entries}`;
    }
    if (valueText === undefined || valueText === node.text) return node.text + repeated;
    return `${node.text}  → ${valueText}${repeated}`;
}

function childLines(node: ExpressionTrace, indent: string): string[] {
    const lines: string[] = [];
    node.children.forEach((child, index) => {
        const last = index === node.children.length - 1;
        lines.push(`${indent}${last ? "└─ " : "├─ "}${nodeText(child)}`, ...childLines(child, indent + (last ? "   " : "│  ")));
    });
    return lines;
}
