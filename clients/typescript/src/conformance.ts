// Runs the protocol's conformance scenarios (protocol/conformance/scenarios/*.json) against a
// bridge binary through this package's Connection. A scenario is a scripted exchange;
// protocol/conformance/README.md defines its steps and patterns.
//
//     node dist/src/conformance.js [--bridge PATH] [--framing content-length] [--conformance-dir DIR] [SCENARIO.json ...]

import { copyFileSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { tmpdir } from "node:os";
import { Connection, ReplyError, type CancellationSignal, type Framing } from "./connection";
import { findBridge } from "./superwall";

const DEFAULT_WITHIN_MS = 5000;
const PLACEHOLDER = /\$\{([^}]+)\}/g;
const WHOLE_PLACEHOLDER = /^\$\{([^}]+)\}$/;
type Json = any;

/** A step of a scenario that did not hold. */
export class ScenarioFailure extends Error {}

/** `protocol/conformance` above the working directory or this file. */
export function defaultConformanceDirectory(): string {
    for (const start of [process.cwd(), __dirname]) {
        let directory = resolve(start);
        for (;;) {
            const candidate = join(directory, "protocol", "conformance");
            if (existsSync(join(candidate, "scenarios"))) return candidate;
            const parent = dirname(directory);
            if (parent === directory) break;
            directory = parent;
        }
    }
    throw new Error("protocol/conformance was not found above the working directory: run from a superwall-bridge checkout, or pass --conformance-dir");
}

export function scenarioFiles(directory = defaultConformanceDirectory()): string[] {
    return readdirSync(join(directory, "scenarios")).filter((name) => name.endsWith(".json")).sort().map((name) => join(directory, "scenarios", name));
}

const TYPES: Record<string, (value: unknown) => boolean> = {
    $string: (value) => typeof value === "string",
    $number: (value) => typeof value === "number",
    $bool: (value) => typeof value === "boolean",
    $array: (value) => Array.isArray(value),
    $object: (value) => typeof value === "object" && value !== null && !Array.isArray(value),
};

const show = (value: unknown): string => JSON.stringify(value)?.slice(0, 200) ?? "undefined";

/** Why `actual` does not match `pattern`, or null when it does (see the README's patterns). */
export function mismatch(pattern: Json, actual: Json, path = "$"): string | null {
    if (pattern === "$any") return null;
    if (typeof pattern === "string" && pattern in TYPES) {
        return TYPES[pattern]!(actual) ? null : `${path}: expected ${pattern.slice(1)}, got ${show(actual)}`;
    }
    if (pattern && typeof pattern === "object" && !Array.isArray(pattern)) {
        const keys = Object.keys(pattern);
        if (keys.length === 1 && keys[0] === "$contains") {
            if (!Array.isArray(actual)) return `${path}: expected an array, got ${show(actual)}`;
            for (const item of pattern.$contains) {
                if (actual.every((element: Json) => mismatch(item, element) !== null)) return `${path}: no element matches ${show(item)}`;
            }
            return null;
        }
        if (!actual || typeof actual !== "object" || Array.isArray(actual)) return `${path}: expected an object, got ${show(actual)}`;
        for (const [key, value] of Object.entries(pattern)) {
            if (value === "$absent") {
                if (key in actual) return `${path}.${key}: expected no such key, got ${show(actual[key])}`;
                continue;
            }
            if (!(key in actual)) return `${path}.${key}: missing`;
            const reason = mismatch(value, actual[key], `${path}.${key}`);
            if (reason) return reason;
        }
        return null;
    }
    if (Array.isArray(pattern)) {
        if (!Array.isArray(actual) || actual.length !== pattern.length) return `${path}: expected ${pattern.length} elements, got ${show(actual)}`;
        for (let index = 0; index < pattern.length; index++) {
            const reason = mismatch(pattern[index], actual[index], `${path}[${index}]`);
            if (reason) return reason;
        }
        return null;
    }
    return pattern === actual ? null : `${path}: expected ${show(pattern)}, got ${show(actual)}`;
}

type Reply = { kind: "result" | "error" | "raw"; value: Json };

/** One scenario against one fresh bridge process. */
export class ScenarioRun {
    private readonly values: Record<string, Json> = {};
    private readonly incoming: Json[] = [];
    private waiter: (() => void) | null = null;
    private readonly replies = new Map<string, { promise: Promise<Reply>; deliver: (reply: Reply) => void; delivered: boolean }>();
    private connection!: Connection;

    constructor(private readonly scenario: Json, private readonly bridge: string, private readonly framing: Framing = "ndjson",
                private readonly directory = defaultConformanceDirectory()) {}

    async run(): Promise<void> {
        const dataDirectory = mkdtempSync(join(tmpdir(), "superwall-conformance-"));
        const workDirectory = mkdtempSync(join(tmpdir(), "superwall-conformance-work-"));
        Object.assign(this.values, { dataDirectory, workDirectory, conformance: this.directory });
        this.connection = Connection.spawn(this.bridge, {
            framing: this.framing,
            observer: (direction, text) => { if (direction === "in") this.observe(text); },
            onRequest: (_method, _params, signal, id) => this.answer(JSON.stringify(id), signal),
        });
        try {
            const steps: Json[] = this.scenario.steps;
            for (let index = 0; index < steps.length; index++) {
                try {
                    await this.perform(steps[index]);
                } catch (error) {
                    if (error instanceof ScenarioFailure) {
                        throw new ScenarioFailure(`${this.scenario.name}, step ${index + 1} ${show(steps[index])}: ${error.message}`);
                    }
                    throw error;
                }
            }
        } finally {
            await this.connection.close(5000);
            rmSync(dataDirectory, { recursive: true, force: true });
            rmSync(workDirectory, { recursive: true, force: true });
        }
    }

    // MARK: The bridge's side

    private observe(text: string): void {
        let message: Json;
        try {
            message = JSON.parse(text);
        } catch {
            message = { unparsable: text };
        }
        if (message && typeof message === "object" && !Array.isArray(message) && typeof message.method === "string" && "id" in message) {
            const key = JSON.stringify(message.id);
            let deliver!: (reply: Reply) => void;
            const promise = new Promise<Reply>((resolve) => { deliver = resolve; });
            const entry = { promise, deliver, delivered: false };
            this.replies.set(key, entry);
            const auto = this.scenario.autoReply?.[message.method];
            if (auto) {
                entry.delivered = true;
                deliver(this.replyBody(auto));
            }
        }
        this.incoming.push(message);
        this.waiter?.();
    }

    /** The answer the scenario gives the bridge's request `key` (its id as JSON text). */
    private async answer(key: string, signal: CancellationSignal): Promise<Json> {
        const entry = this.replies.get(key);
        if (!entry) throw new ReplyError(-32603, "no such request");
        const reply = await Promise.race([entry.promise, new Promise<never>((_, reject) => signal.addEventListener("abort", () => reject(new Error("cancelled"))))]);
        if (reply.kind === "error") throw new ReplyError(reply.value.code ?? -32000, reply.value.message ?? "", reply.value.data);
        if (reply.kind === "raw") {
            this.connection.sendText(reply.value);
            await new Promise<never>((_, reject) => signal.addEventListener("abort", () => reject(new Error("cancelled"))));
        }
        return reply.value;
    }

    private replyBody(reply: Json): Reply {
        for (const kind of ["result", "error", "raw"] as const) if (kind in reply) return { kind, value: reply[kind] };
        throw new ScenarioFailure(`a reply needs result, error or raw: ${show(reply)}`);
    }

    private respond(requestId: Json, reply: Json, afterMs: number): void {
        const entry = this.replies.get(JSON.stringify(requestId));
        if (!entry) throw new ScenarioFailure(`no bridge request with id ${show(requestId)} to reply to`);
        const body = this.replyBody(reply);
        const deliver = () => {
            if (!entry.delivered) {
                entry.delivered = true;
                entry.deliver(body);
            }
        };
        if (afterMs) setTimeout(deliver, afterMs);
        else deliver();
    }

    // MARK: Steps

    private async perform(step: Json): Promise<void> {
        if ("send" in step) {
            this.connection.sendText(JSON.stringify({ jsonrpc: "2.0", ...this.substitute(step.send) }));
        } else if ("sendRaw" in step) {
            this.connection.sendText(this.substitute(step.sendRaw));
        } else if ("expect" in step) {
            const message = await this.expect(this.substitute(step.expect), step.withinMs ?? DEFAULT_WITHIN_MS);
            if (step.as) this.values[step.as] = message;
            for (const [name, path] of Object.entries(step.capture ?? {})) this.values[name] = lookup(message, path as string);
            if (step.reply) this.respond(message.id, step.reply, step.replyAfterMs ?? 0);
        } else if ("expectUnordered" in step) {
            const waiting: Json[] = [...this.substitute(step.expectUnordered)];
            const deadline = Date.now() + (step.withinMs ?? DEFAULT_WITHIN_MS);
            while (waiting.length) {
                const message = await this.next(deadline, () => `nothing matched ${show(waiting)} within ${step.withinMs ?? DEFAULT_WITHIN_MS} ms`);
                const index = waiting.findIndex((pattern) => mismatch(pattern, message) === null);
                if (index >= 0) waiting.splice(index, 1);
            }
        } else if ("expectBatch" in step) {
            const deadline = Date.now() + (step.withinMs ?? DEFAULT_WITHIN_MS);
            let batch: Json;
            do batch = await this.next(deadline, () => "no batch reply"); while (!Array.isArray(batch));
            const unmatched: Json[] = [...batch];
            for (const pattern of this.substitute(step.expectBatch)) {
                const index = unmatched.findIndex((item) => mismatch(pattern, item) === null);
                if (index < 0) throw new ScenarioFailure(`the batch ${show(batch)} has nothing matching ${show(pattern)}`);
                unmatched.splice(index, 1);
            }
            if (unmatched.length) throw new ScenarioFailure(`the batch has replies no pattern expects: ${show(unmatched)}`);
        } else if ("expectNot" in step) {
            const pattern = this.substitute(step.expectNot);
            const deadline = Date.now() + (step.withinMs ?? 200);
            for (;;) {
                let message: Json;
                try {
                    message = await this.next(deadline, () => "");
                } catch {
                    return;
                }
                if (mismatch(pattern, message) === null) throw new ScenarioFailure(`unexpected ${show(message)}`);
            }
        } else if ("respond" in step) {
            const respond = this.substitute(step.respond);
            const request = this.values[respond.to];
            if (!request || typeof request !== "object" || !("id" in request)) throw new ScenarioFailure(`no captured request named ${respond.to}`);
            this.respond(request.id, respond, respond.afterMs ?? 0);
        } else if ("copyFile" in step) {
            const copy = this.substitute(step.copyFile);
            copyFileSync(copy.from, copy.to);
        } else if ("writeFile" in step) {
            const write = this.substitute(step.writeFile);
            writeFileSync(write.path, write.text);
        } else if ("sleep" in step) {
            await new Promise((resolve) => setTimeout(resolve, step.sleep));
        } else if ("closeInput" in step) {
            this.connection.closeInput();
        } else if ("expectExit" in step) {
            const code = await this.connection.wait(step.expectExit.withinMs ?? DEFAULT_WITHIN_MS);
            if (code === "running") throw new ScenarioFailure("the bridge did not exit");
            if ("code" in step.expectExit && code !== step.expectExit.code) throw new ScenarioFailure(`exit status ${code}, expected ${step.expectExit.code}`);
        } else {
            throw new ScenarioFailure(`unknown step ${show(step)}`);
        }
    }

    private async expect(pattern: Json, withinMs: number): Promise<Json> {
        const deadline = Date.now() + withinMs;
        const passed: string[] = [];
        for (;;) {
            const message = await this.next(deadline, () => `nothing matched within ${withinMs} ms; passed over: ${passed.slice(-8).join("; ")}`);
            const reason = mismatch(pattern, message);
            if (reason === null) return message;
            passed.push(`${show(message).slice(0, 160)} (${reason})`);
        }
    }

    /** The next message from the bridge, or a failure saying `why` at the deadline. */
    private async next(deadline: number, why: () => string): Promise<Json> {
        while (this.incoming.length === 0) {
            const remaining = deadline - Date.now();
            if (remaining <= 0) throw new ScenarioFailure(why());
            await new Promise<void>((resolve) => {
                const timer = setTimeout(() => resolve(), remaining);
                this.waiter = () => { clearTimeout(timer); resolve(); };
            });
            this.waiter = null;
        }
        return this.incoming.shift();
    }

    private substitute(value: Json): Json {
        if (typeof value === "string") {
            const whole = WHOLE_PLACEHOLDER.exec(value);
            if (whole) return this.value(whole[1]!);
            return value.replace(PLACEHOLDER, (_, name: string) => String(this.value(name)));
        }
        if (Array.isArray(value)) return value.map((item) => this.substitute(item));
        if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, this.substitute(item)]));
        return value;
    }

    private value(name: string): Json {
        const [head, ...rest] = name.split(".");
        if (!(head! in this.values)) throw new ScenarioFailure(`\${${name}} names nothing captured yet`);
        return rest.length ? lookup(this.values[head!], rest.join(".")) : this.values[head!];
    }
}

function lookup(message: Json, path: string): Json {
    let value = message;
    for (const part of path ? path.split(".") : []) {
        if (!value || typeof value !== "object" || !(part in value)) throw new ScenarioFailure(`${path} is not in ${show(message)}`);
        value = value[part];
    }
    return value;
}

/** Runs each scenario file; answers each one's name and failure (null when it passed). */
export async function runScenarios(paths: string[], bridge: string, framing: Framing = "ndjson"): Promise<Array<[string, string | null]>> {
    const results: Array<[string, string | null]> = [];
    for (const path of paths) {
        const name = path.split("/").pop()!.replace(/\.json$/, "");
        try {
            // A scenario's configs sit beside its folder: conformance/{scenarios,configs}.
            await new ScenarioRun(JSON.parse(readFileSync(path, "utf8")), bridge, framing, dirname(dirname(resolve(path)))).run();
            results.push([name, null]);
        } catch (error) {
            results.push([name, error instanceof Error ? error.message : String(error)]);
        }
    }
    return results;
}

async function main(argv: string[]): Promise<number> {
    let bridge: string | undefined;
    let framing: Framing = "ndjson";
    let directory: string | undefined;
    const paths: string[] = [];
    for (let index = 0; index < argv.length; index++) {
        const argument = argv[index]!;
        if (argument === "--bridge") bridge = argv[++index];
        else if (argument === "--framing") framing = argv[++index] as Framing;
        else if (argument === "--conformance-dir") directory = argv[++index];
        else paths.push(argument);
    }
    const results = await runScenarios(paths.length ? paths : scenarioFiles(directory), findBridge(bridge), framing);
    for (const [name, failure] of results) process.stdout.write(`${failure === null ? "ok  " : "FAIL"} ${name}${failure ? `\n     ${failure}` : ""}\n`);
    const failed = results.filter(([, failure]) => failure !== null).length;
    process.stdout.write(`${results.length - failed} passed, ${failed} failed\n`);
    return failed ? 1 : 0;
}

if (require.main === module) {
    void main(process.argv.slice(2)).then((code) => { process.exitCode = code; });
}
