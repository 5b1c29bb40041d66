import { test } from "node:test";
import * as assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { scratchDirectory } from "./support";

/** This package as an app's node_modules has it, built (`dist`). */
const PACKAGE = join(__dirname, "..", "..");

/** Compiles an app that imports both entry points, with `moduleResolution`; answers tsc's output. */
function compileApp(moduleResolution: "node" | "node16", checkingLibraries = false): string {
    const app = scratchDirectory("superwall-types-");
    mkdirSync(join(app, "node_modules"));
    symlinkSync(PACKAGE, join(app, "node_modules", "superwall-bridge"));
    writeFileSync(join(app, "app.ts"), [
        `import { startTestBridge, PaywallActions } from "superwall-bridge/testing";`,
        `import { Superwall } from "superwall-bridge";`,
        `export const used = [startTestBridge, PaywallActions, Superwall];`,
    ].join("\n"));
    const module = moduleResolution === "node" ? "commonjs" : "node16";
    try {
        if (checkingLibraries) {
            // What an app without @types/node compiles with: ES2022's library alone, every .d.ts checked.
            writeFileSync(join(app, "tsconfig.json"), JSON.stringify({
                compilerOptions: { noEmit: true, strict: true, target: "es2022", lib: ["es2022"], types: [], module, moduleResolution },
                files: ["app.ts"],
            }));
            return execFileSync("tsc", ["-p", app], { encoding: "utf8" });
        }
        return execFileSync("tsc", ["--noEmit", "--skipLibCheck", "--target", "es2022", "--module", module,
            "--moduleResolution", moduleResolution, join(app, "app.ts")], { encoding: "utf8" });
    } catch (error) {
        return String((error as { stdout?: string }).stdout ?? error);
    }
}

test("both entry points have types under the classic node resolution too (typesVersions)", () => {
    assert.equal(compileApp("node"), "");
    assert.equal(compileApp("node16"), "");
});

test("the package's own declarations type-check with no @types/node and no DOM library", () => {
    assert.equal(compileApp("node16", true), "");
});
