// What the test files share: folders in the temp folder, removed when a file's tests end, and a
// bounded wait for what arrives on its own time (delegate notifications).
import { after } from "node:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const made: string[] = [];

after(() => {
    for (const folder of made) rmSync(folder, { recursive: true, force: true });
});

/** A fresh folder in the temp folder, named `prefix…`, removed after this file's last test. */
export function scratchDirectory(prefix: string): string {
    const folder = mkdtempSync(join(tmpdir(), prefix));
    made.push(folder);
    return folder;
}

/** Resolves when `condition` holds, polling; rejects after `ms`, naming `what`. */
export async function eventually(condition: () => boolean, what: string, ms = 10_000): Promise<void> {
    const deadline = Date.now() + ms;
    while (!condition()) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
        await new Promise((resolve) => setTimeout(resolve, 10));
    }
}
