import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { BridgeClosedError, BridgeError, BridgeTimeoutError } from "./errors";

/** How messages are delimited: one JSON text per line, or LSP's `Content-Length` headers. */
export type Framing = "ndjson" | "content-length";

/** What a request handler is given to hear that the bridge cancelled the request: Node's
 * `AbortSignal`, declared here by what this package uses so an app's `tsc` needs no
 * `@types/node` to read these types. */
export interface CancellationSignal {
    readonly aborted: boolean;
    addEventListener(type: "abort", listener: () => void): void;
}

/** Answers one of the bridge's requests; what it throws becomes an error reply. `signal`
 * aborts when the bridge cancels the request (`$/cancelRequest`). */
export type RequestHandler = (method: string, params: unknown, signal: CancellationSignal, id: unknown) => unknown | Promise<unknown>;
export type NotificationHandler = (method: string, params: unknown) => void | Promise<void>;
/** Sees every frame's text, `in` from the bridge and `out` to it. */
export type WireObserver = (direction: "in" | "out", text: string) => void;

export interface ConnectionOptions {
    args?: readonly string[];
    env?: Record<string, string | undefined>;
    framing?: Framing;
    onRequest?: RequestHandler;
    onNotification?: NotificationHandler;
    observer?: WireObserver;
}

/** Thrown by a request handler to answer with a specific JSON-RPC error. */
export class ReplyError extends Error {
    constructor(readonly code: number, message: string, readonly data?: Record<string, unknown>) {
        super(message);
    }
}

export const DEFAULT_TIMEOUT_MS = 30_000;

/** Throws, naming `/proc`, where the bridge could not start: without it the binary's loader
 * cannot find `libsuperwall_bridge.so` beside it (`$ORIGIN`) and the Swift runtime's
 * libdispatch stops the process as it sizes its thread pool. `probe` is what tells it is mounted. */
export function requireProc(probe = "/proc/self/exe"): void {
    if (existsSync(probe)) return;
    throw new Error("superwall-bridge needs /proc mounted (this system has no /proc/self): the loader finds "
        + "libsuperwall_bridge.so through it and the Swift runtime reads it; mount it with `mount -t proc proc /proc` "
        + "in the chroot or container");
}

interface Pending {
    method: string;
    resolve: (value: unknown) => void;
    reject: (error: Error) => void;
    timer: NodeTimer;
}

/** A JSON-RPC 2.0 peer over a spawned bridge's stdio: requests with deadlines, the bridge's
 * own requests and notifications, and an end that fails everything still waiting. */
export class Connection {
    private readonly child: ChildProcess;
    private readonly framing: Framing;
    private readonly pending = new Map<string, Pending>();
    private readonly answering = new Map<string, AbortController>();
    private buffer: Buffer = Buffer.alloc(0);
    private nextId = 0;
    private closed: BridgeClosedError | null = null;
    private stderrTail = "";
    /** Settles with the exit code when the bridge exits. */
    readonly exited: Promise<number | null>;

    private constructor(binary: string, private readonly options: ConnectionOptions) {
        this.framing = options.framing ?? "ndjson";
        const args = [...(options.args ?? [])];
        if (this.framing === "content-length") args.push("--framing", "content-length");
        this.child = spawn(binary, args, { env: options.env ?? process.env, stdio: ["pipe", "pipe", "pipe"] });
        this.exited = new Promise((resolve) => {
            this.child.on("exit", (code) => {
                this.end(code);
                resolve(code);
            });
            this.child.on("error", (error) => {
                this.end(null, `the bridge could not start (${binary}): ${error.message}`);
                resolve(null);
            });
        });
        this.child.stdout.on("data", (chunk) => this.receive(chunk));
        this.child.stderr.on("data", (chunk) => {
            this.stderrTail = (this.stderrTail + chunk.toString("utf8")).slice(-2000);
        });
        this.child.stdin.on("error", () => undefined);
    }

    static spawn(binary: string, options: ConnectionOptions = {}): Connection {
        requireProc();
        return new Connection(binary, options);
    }

    /** Sends a request and waits for its answer, at most `timeoutMs`; on the deadline the
     * bridge is sent `$/cancelRequest`. */
    request<Result = unknown>(method: string, params?: unknown, timeoutMs = DEFAULT_TIMEOUT_MS, id?: string): Promise<Result> {
        if (this.closed) return Promise.reject(this.closed);
        const requestId = id ?? `c-${++this.nextId}`;
        return new Promise<Result>((resolve, reject) => {
            const timer = setTimeout(() => {
                if (!this.pending.delete(requestId)) return;
                this.notify("$/cancelRequest", { id: requestId });
                reject(new BridgeTimeoutError(method, timeoutMs, this.waitingOn?.() ?? []));
            }, timeoutMs);
            this.pending.set(requestId, { method, resolve: resolve as (value: unknown) => void, reject, timer });
            this.send({ jsonrpc: "2.0", id: requestId, method, ...(params === undefined ? {} : { params }) });
        });
    }

    /** Says what is still open when a call times out (set by the client). */
    waitingOn: (() => string[]) | undefined;

    /** Fails every call waiting for its answer with `error` (a test tool that knows the answers
     * will not come), and cancels them at the bridge. Returns how many there were. */
    failWaiting(error: Error): number {
        const waiting = [...this.pending];
        this.pending.clear();
        for (const [id, pending] of waiting) {
            clearTimeout(pending.timer);
            this.notify("$/cancelRequest", { id });
            pending.reject(error);
        }
        return waiting.length;
    }

    notify(method: string, params?: unknown): void {
        if (this.closed) return;
        this.send({ jsonrpc: "2.0", method, ...(params === undefined ? {} : { params }) });
    }

    /** Sends `text` as one frame, as it is. */
    sendText(text: string): void {
        if (this.closed) return;
        this.options.observer?.("out", text);
        const body = Buffer.from(text, "utf8");
        const frame = this.framing === "ndjson"
            ? Buffer.concat([body, Buffer.from("\n")])
            : Buffer.concat([Buffer.from(`Content-Length: ${body.length}\r\n\r\n`), body]);
        this.child.stdin.write(frame);
    }

    /** Closes the bridge's input: it answers what it read, then exits. */
    closeInput(): void {
        if (!this.child.stdin.destroyed) this.child.stdin.end();
    }

    /** The exit code, or null when it has not exited within `timeoutMs`. */
    async wait(timeoutMs: number): Promise<number | null | "running"> {
        let timer: NodeTimer | undefined;
        const deadline = new Promise<"running">((resolve) => {
            timer = setTimeout(() => resolve("running"), timeoutMs);
        });
        const outcome = await Promise.race([this.exited, deadline]);
        clearTimeout(timer);
        return outcome;
    }

    /** Ends the bridge: closes its input, waits `timeoutMs` for it to exit, then kills it. */
    async close(timeoutMs = 5000): Promise<number | null> {
        this.closeInput();
        const outcome = await this.wait(timeoutMs);
        if (outcome !== "running") return outcome;
        this.child.kill("SIGKILL");
        return this.exited;
    }

    get isClosed(): boolean {
        return this.closed !== null;
    }

    private send(message: unknown): void {
        this.sendText(JSON.stringify(message));
    }

    private receive(chunk: Buffer): void {
        this.buffer = this.buffer.length ? Buffer.concat([this.buffer, chunk]) : chunk;
        for (;;) {
            const text = this.framing === "ndjson" ? this.nextLine() : this.nextContentLengthFrame();
            if (text === null) return;
            if (text.trim() === "") continue;
            this.options.observer?.("in", text);
            let message: unknown;
            try {
                message = JSON.parse(text);
            } catch {
                continue;
            }
            for (const item of Array.isArray(message) ? message : [message]) this.dispatch(item);
        }
    }

    private nextLine(): string | null {
        const end = this.buffer.indexOf(10);
        if (end < 0) return null;
        const text = this.buffer.toString("utf8", 0, end);
        this.buffer = this.buffer.subarray(end + 1);
        return text;
    }

    private nextContentLengthFrame(): string | null {
        const headerEnd = this.buffer.indexOf("\r\n\r\n");
        if (headerEnd < 0) return null;
        const header = this.buffer.toString("utf8", 0, headerEnd);
        const match = /content-length:\s*(\d+)/i.exec(header);
        const length = match ? Number(match[1]) : 0;
        if (this.buffer.length < headerEnd + 4 + length) return null;
        const text = this.buffer.toString("utf8", headerEnd + 4, headerEnd + 4 + length);
        this.buffer = this.buffer.subarray(headerEnd + 4 + length);
        return text;
    }

    private dispatch(message: unknown): void {
        if (typeof message !== "object" || message === null) return;
        const fields = message as { id?: unknown; method?: unknown; params?: unknown; result?: unknown; error?: unknown };
        if (typeof fields.method === "string") {
            if (fields.id !== undefined && fields.id !== null) {
                void this.answer(String(fields.id), fields.id, fields.method, fields.params);
            } else if (fields.method === "$/cancelRequest") {
                const id = (fields.params as { id?: unknown } | undefined)?.id;
                this.answering.get(String(id))?.abort();
            } else {
                void this.hear(fields.method, fields.params);
            }
            return;
        }
        const pending = this.pending.get(String(fields.id));
        if (!pending) return;
        this.pending.delete(String(fields.id));
        clearTimeout(pending.timer);
        if (fields.error && typeof fields.error === "object") {
            const error = fields.error as { code?: number; message?: string; data?: Record<string, unknown> };
            pending.reject(new BridgeError(error.code ?? -32603, error.message ?? "error", error.data));
        } else {
            pending.resolve(fields.result);
        }
    }

    /** Runs the handler for one of the bridge's requests; whatever it throws is an error reply. */
    private async answer(key: string, id: unknown, method: string, params: unknown): Promise<void> {
        const controller = new AbortController();
        this.answering.set(key, controller);
        try {
            if (!this.options.onRequest) throw new ReplyError(-32601, `This client does not handle ${method}.`, { kind: "methodNotFound" });
            const result = await this.options.onRequest(method, params, controller.signal, id);
            if (!controller.signal.aborted) this.send({ jsonrpc: "2.0", id, result: result ?? {} });
        } catch (error) {
            if (controller.signal.aborted) return;
            if (!(error instanceof ReplyError)) this.callbackDidFail(method, error);
            const reply = error instanceof ReplyError
                ? { code: error.code, message: error.message, data: error.data }
                : { code: -32603, message: error instanceof Error ? error.message : String(error), data: { kind: "internalError" } };
            this.send({ jsonrpc: "2.0", id, error: reply });
        } finally {
            this.answering.delete(key);
        }
    }

    private async hear(method: string, params: unknown): Promise<void> {
        try {
            await this.options.onNotification?.(method, params);
        } catch (error) {
            // A listener's failure is the app's: said, never an unhandled rejection.
            this.callbackDidFail(method, error);
        }
    }

    /** Called with the method and the error when one of the app's callbacks (a listener, a
     * presenter or controller method) threw; it is logged to stderr with its stack either way.
     * The test bridge fails the test with it. */
    onCallbackError: ((method: string, error: unknown) => void) | undefined;

    private callbackDidFail(method: string, error: unknown): void {
        console.error(`superwall-bridge: your callback for ${method} threw:`, error);
        this.onCallbackError?.(method, error);
    }

    private end(code: number | null, reason?: string): void {
        if (this.closed) return;
        const why = reason ?? `the bridge exited with status ${code}${this.stderrTail ? `: ${this.stderrTail.trim().split("\n").pop()}` : ""}`;
        this.closed = new BridgeClosedError(why, code);
        for (const [id, pending] of this.pending) {
            clearTimeout(pending.timer);
            pending.reject(this.closed);
            this.pending.delete(id);
        }
        for (const controller of this.answering.values()) controller.abort();
    }
}
