import type { ErrorKind, PresentationDecision } from "./generated/protocol";

/** A JSON-RPC error reply from the bridge. `kind` (its `data.kind`) is stable; switch on it. */
export class BridgeError extends Error {
    readonly code: number;
    readonly kind: ErrorKind | string;
    readonly data: Record<string, unknown> | undefined;

    constructor(code: number, message: string, data?: Record<string, unknown>) {
        super(message);
        this.name = "BridgeError";
        this.code = code;
        this.data = data;
        this.kind = typeof data?.kind === "string" ? data.kind : "unknown";
    }

    /** The decision record of a `getPaywall` that asked for it (`explain: true`) and found no
     * paywall to show: why it was skipped or failed. */
    get decision(): PresentationDecision | undefined {
        const decision = this.data?.decision;
        return decision !== null && typeof decision === "object" ? (decision as PresentationDecision) : undefined;
    }
}

/** A call the bridge did not answer within its timeout; the bridge was told to cancel it. */
export class BridgeTimeoutError extends Error {
    readonly method: string;
    readonly timeoutMs: number;

    /** What was still open when it timed out: paywalls on screen, the bridge's requests this
     * client had not answered. */
    readonly waitingOn: string[];

    constructor(method: string, timeoutMs: number, waitingOn: string[] = []) {
        super(`${method} got no answer within ${timeoutMs} ms${waitingOn.length ? `: ${waitingOn.join("; ")}` : ""}`);
        this.name = "BridgeTimeoutError";
        this.method = method;
        this.timeoutMs = timeoutMs;
        this.waitingOn = waitingOn;
    }
}

/** The bridge exited (or could not start): every call waiting on it fails with this. */
export class BridgeClosedError extends Error {
    readonly exitCode: number | null;

    constructor(message: string, exitCode: number | null) {
        super(message);
        this.name = "BridgeClosedError";
        this.exitCode = exitCode;
    }
}

/** A placement the config does not know, with `unknownPlacements: "fail"` (the test bridge's
 * default): SuperwallKit skips it and grants the feature, so a typo would pass a test.
 * `nearest` is the config's placement it most likely meant. */
export class UnknownPlacementError extends Error {
    readonly placement: string;
    readonly nearest: string | undefined;

    constructor(placement: string, nearest: string | undefined) {
        super(`no campaign of the config has the placement "${placement}"${nearest ? `; did you mean "${nearest}"?` : ""} `
            + "(SuperwallKit would skip it and grant the feature)");
        this.name = "UnknownPlacementError";
        this.placement = placement;
        this.nearest = nearest;
    }
}
