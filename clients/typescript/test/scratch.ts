// Folders a test file makes in the temp folder, removed when the file's tests end.
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
