// Loaded first by both entry points, and written in syntax every Node parses: an older Node
// learns what it lacks here, not from a syntax error deeper in the package.

/** The Node version this package needs, and the error an older one gets when it loads it. */
export const NODE_MAJOR_NEEDED = 18;

export function requireSupportedNode(version: string): void {
    const major = Number(version.replace(/^v/, "").split(".")[0]);
    if (!(major >= NODE_MAJOR_NEEDED)) {
        throw new Error("superwall-bridge needs Node " + NODE_MAJOR_NEEDED + " or later (this is " + version + ")");
    }
}

requireSupportedNode(process.versions.node);
