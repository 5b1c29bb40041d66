import { test } from "node:test";
import * as assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { requireProc } from "../src/connection";
import { requireSupportedNode } from "../src/nodeVersion";

test("a Node older than 18 is refused by name, with the version it is", () => {
    assert.throws(() => requireSupportedNode("v12.22.12"), { message: "superwall-bridge needs Node 18 or later (this is v12.22.12)" });
    assert.throws(() => requireSupportedNode("v17.9.1"), /needs Node 18 or later/);
    requireSupportedNode("v18.0.0");
    requireSupportedNode("v20.20.2");
});

test("both entry points check the Node version before they load anything else", () => {
    for (const entry of ["index.js", "testing.js"]) {
        const compiled = readFileSync(join(__dirname, "..", "src", entry), "utf8");
        const requires = [...compiled.matchAll(/require\("([^"]+)"\)/g)].map((match) => match[1]);
        assert.equal(requires[0], "./nodeVersion", `${entry} requires ${requires.join(", ")}`);
    }
});

test("a system without /proc is named before the bridge is spawned", () => {
    assert.throws(() => requireProc(join(__dirname, "no-proc", "self", "exe")), /needs \/proc mounted/);
    requireProc();
});
