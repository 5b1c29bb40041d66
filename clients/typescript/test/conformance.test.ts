// Every conformance scenario, in both framings, through this package's Connection.
import { test } from "node:test";
import * as assert from "node:assert/strict";
import { findBridge } from "../src/index";
import { mismatch, runScenarios, scenarioFiles } from "../src/conformance";

for (const framing of ["ndjson", "content-length"] as const) {
    for (const path of scenarioFiles()) {
        const name = path.split("/").pop()!.replace(/\.json$/, "");
        test(`conformance ${name} (${framing})`, async () => {
            const [[, failure]] = (await runScenarios([path], findBridge(), framing)) as [[string, string | null]];
            assert.equal(failure, null);
        });
    }
}

test("patterns match as the conformance README defines them", () => {
    assert.equal(mismatch({ a: "$number", b: "$absent" }, { a: 1, c: 2 }), null);
    assert.notEqual(mismatch({ a: "$number" }, { a: "1" }), null);
    assert.equal(mismatch({ $contains: [{ id: 2 }] }, [{ id: 1 }, { id: 2 }]), null);
    assert.notEqual(mismatch([1, 2], [1, 2, 3]), null);
    assert.notEqual(mismatch({ b: "$absent" }, { b: null }), null);
});
