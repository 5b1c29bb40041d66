// The few Node.js APIs this package uses, declared here: Debian packages TypeScript but not
// @types/node, and npm's registry is not reachable where this is built. A published build
// would take them from @types/node instead (a dev dependency only).

interface Buffer extends Uint8Array {
    toString(encoding?: string, start?: number, end?: number): string;
    subarray(start?: number, end?: number): Buffer;
    indexOf(value: string | number | Uint8Array, byteOffset?: number): number;
}
declare var Buffer: {
    from(data: string | Uint8Array | ArrayLike<number>, encoding?: string): Buffer;
    concat(list: readonly Uint8Array[], totalLength?: number): Buffer;
    byteLength(text: string, encoding?: string): number;
    alloc(size: number): Buffer;
};

declare var console: { error(...data: unknown[]): void; log(...data: unknown[]): void };
declare function setTimeout(callback: (...args: unknown[]) => void, ms?: number): NodeTimer;
declare function clearTimeout(timer: NodeTimer | undefined): void;
declare function setImmediate(callback: () => void): unknown;
interface NodeTimer {
    unref(): NodeTimer;
    ref(): NodeTimer;
}

declare class TextEncoder {
    encode(text: string): Uint8Array;
}
declare class TextDecoder {
    constructor(label?: string);
    decode(bytes: Uint8Array): string;
}

declare const process: {
    env: Record<string, string | undefined>;
    argv: string[];
    versions: { node: string };
    platform: string;
    execPath: string;
    exitCode: number | undefined;
    cwd(): string;
    chdir(directory: string): void;
    on(event: "unhandledRejection", listener: (reason: unknown) => void): void;
    stdout: { write(text: string): boolean };
    stderr: { write(text: string): boolean };
};

declare const __dirname: string;
declare const require: { main: unknown };
declare const module: unknown;

declare module "node:child_process" {
    interface Readable {
        on(event: "data", listener: (chunk: Buffer) => void): this;
        on(event: "end" | "close", listener: () => void): this;
        on(event: "error", listener: (error: Error) => void): this;
        off(event: "data", listener: (chunk: Buffer) => void): this;
    }
    interface Writable {
        write(chunk: string | Uint8Array, callback?: (error?: Error | null) => void): boolean;
        end(callback?: () => void): void;
        on(event: "error", listener: (error: Error) => void): this;
        destroyed: boolean;
    }
    interface ChildProcess {
        readonly pid?: number;
        readonly exitCode: number | null;
        readonly signalCode: string | null;
        readonly stdin: Writable;
        readonly stdout: Readable;
        readonly stderr: Readable;
        kill(signal?: string): boolean;
        on(event: "exit", listener: (code: number | null, signal: string | null) => void): this;
        on(event: "error", listener: (error: Error) => void): this;
        once(event: "exit", listener: (code: number | null, signal: string | null) => void): this;
        once(event: "error", listener: (error: Error) => void): this;
    }
    interface SpawnOptions {
        env?: Record<string, string | undefined>;
        stdio?: ["pipe", "pipe", "pipe" | "inherit" | "ignore"];
    }
    function spawn(command: string, args: readonly string[], options?: SpawnOptions): ChildProcess;
    function execFileSync(command: string, args: readonly string[], options?: { encoding: "utf8" }): string;
}

declare module "node:fs" {
    function readFileSync(path: string, encoding: "utf8"): string;
    function writeFileSync(path: string, data: string): void;
    function chmodSync(path: string, mode: number): void;
    function readdirSync(path: string): string[];
    function existsSync(path: string): boolean;
    function mkdtempSync(prefix: string): string;
    function mkdirSync(path: string, options?: { recursive?: boolean }): string | undefined;
    function rmSync(path: string, options?: { recursive?: boolean; force?: boolean }): void;
    function copyFileSync(from: string, to: string): void;
    function symlinkSync(target: string, path: string): void;
    function statSync(path: string): { isFile(): boolean; isDirectory(): boolean };
}

declare module "node:path" {
    function join(...parts: string[]): string;
    function resolve(...parts: string[]): string;
    function dirname(path: string): string;
    function basename(path: string, suffix?: string): string;
}

declare module "node:os" {
    function tmpdir(): string;
}

declare module "node:test" {
    type TestFunction = (context: unknown) => void | Promise<void>;
    function test(name: string, fn: TestFunction): Promise<void>;
    function test(name: string, options: { timeout?: number; skip?: boolean | string }, fn: TestFunction): Promise<void>;
    function describe(name: string, fn: () => void): void;
    function it(name: string, fn: TestFunction): void;
    function before(fn: () => void | Promise<void>): void;
    function after(fn: () => void | Promise<void>): void;
}

declare module "node:assert/strict" {
    function ok(value: unknown, message?: string): void;
    function equal(actual: unknown, expected: unknown, message?: string): void;
    function notEqual(actual: unknown, expected: unknown, message?: string): void;
    function deepEqual(actual: unknown, expected: unknown, message?: string): void;
    function match(actual: string, pattern: RegExp, message?: string): void;
    function rejects(block: Promise<unknown> | (() => Promise<unknown>), expected?: unknown, message?: string): Promise<void>;
    function fail(message?: string): never;
    function throws(block: () => unknown, expected?: unknown, message?: string): void;
    export { ok, equal, notEqual, deepEqual, match, rejects, fail, throws };
}

declare class AbortController {
    readonly signal: AbortSignal;
    abort(): void;
}
interface AbortSignal {
    readonly aborted: boolean;
    addEventListener(type: "abort", listener: () => void): void;
}
