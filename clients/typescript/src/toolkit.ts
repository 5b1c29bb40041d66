// The test toolkit's code; `testing.ts` is its entry point (see there).
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ConfigureOptions, PaywallPresentation, Product, TrackedEvent } from "./generated/protocol";
import { requireProc } from "./connection";
import { findBridge, Superwall, type PaywallPresenter, type PurchaseAnswer, type PurchaseController, type RestoreAnswer, type SuperwallDelegate } from "./superwall";

export type StoreOutcome = "purchased" | "cancelled" | "pending" | "failed";

/** A purchase controller whose purchases end as scripted: `purchased` unless `will()` says
 * otherwise. One that goes through makes the user active with the product's entitlements;
 * a restore restores what was bought here, or `restorable` when set. */
export class FakeStore implements PurchaseController {
    /** Every purchase asked of the store, by product identifier, in order. */
    readonly purchases: string[] = [];
    /** How many restores were asked. */
    restores = 0;
    /** The entitlements a restore finds; unset, those bought here. */
    restorable: string[] | undefined;
    private readonly outcomes = new Map<string, StoreOutcome>();
    private readonly owned = new Set<string>();
    private superwall: Superwall | undefined;

    constructor(private readonly fallback: StoreOutcome = "purchased") {}

    /** The next purchases of `productIdentifier` end with `outcome`. */
    will(productIdentifier: string, outcome: StoreOutcome): this {
        this.outcomes.set(productIdentifier, outcome);
        return this;
    }

    /** The bridge the store reports the subscription status to. */
    attach(superwall: Superwall): void {
        this.superwall = superwall;
    }

    /** Tells the bridge what the user owns here, as a store's listener does at launch: with a
     * purchase controller, the bridge waits for the host's status before presenting. */
    async reportStatus(): Promise<void> {
        if (!this.superwall) throw new Error("FakeStore is not attached to a bridge: call attach(superwall) first");
        const entitlements = [...this.owned].sort();
        await this.superwall.setSubscriptionStatus(entitlements.length
            ? { type: "active", entitlements: entitlements.map((id) => ({ id })) }
            : { type: "inactive" });
    }

    async purchase(product: Product): Promise<PurchaseAnswer> {
        this.purchases.push(product.productIdentifier);
        const outcome = this.outcomes.get(product.productIdentifier) ?? this.fallback;
        switch (outcome) {
            case "purchased":
                for (const entitlement of product.entitlements) this.owned.add(entitlement.id);
                await this.reportStatus();
                return { type: "purchased" };
            case "failed": return { type: "failed", error: `FakeStore: the purchase of ${product.productIdentifier} failed, as scripted` };
            default: return { type: outcome };
        }
    }

    async restorePurchases(): Promise<RestoreAnswer> {
        this.restores += 1;
        if (this.restorable) {
            this.owned.clear();
            for (const id of this.restorable) this.owned.add(id);
        }
        await this.reportStatus();
        return { type: "restored" };
    }
}

/** What the driver does on a paywall: `paywall/action`'s `action`. */
export type PaywallAction = { type: string } & Record<string, unknown>;

export const PaywallActions = {
    purchase: (productId: string): PaywallAction => ({ type: "purchase", productId }),
    restore: (): PaywallAction => ({ type: "restore" }),
    close: (): PaywallAction => ({ type: "close" }),
    custom: (name: string): PaywallAction => ({ type: "custom", name }),
    /** The page's custom callback `name` with its `variables`, as a page's `request_callback` sends it. */
    requestCallback: (name: string, variables: Record<string, unknown> = {}): PaywallAction => ({ type: "requestCallback", name, variables }),
    /** The same action, whose `failed` answer is what the test expects. */
    expectingFailure: (action: PaywallAction): PaywallAction => ({ ...action, expectsFailure: true }),
};

/** A paywall presenter for tests. Each paywall shown is kept in `shown`, and the actions
 * scripted for it (`then()`) are performed in order, once the bridge has its answer to
 * `paywall/present`. A paywall with no script is closed (`unscripted: "close"`, the default),
 * or kept for `nextPaywall()` (`"wait"`). Failed actions are kept in `failures`. */
/** A paywall did not go as its script said: it was still on screen when the script ran out,
 * an action was answered `failed`, or a script was never used. Thrown into the calls waiting on
 * the bridge (a `register` would otherwise wait for the paywall to close). */
export class PaywallScriptError extends Error {
    constructor(message: string) {
        super(message);
        this.name = "PaywallScriptError";
    }
}

/** A callback of the test's own (a delegate, presenter or purchase controller method) threw:
 * the calls waiting reject with it, and `TestBridge.close` rejects with every one. */
export class CallbackError extends Error {
    constructor(message: string) {
        super(message);
        this.name = "CallbackError";
    }
}

/** How a script may end: `keepOpen`, the paywall may still be up (the test goes on with it);
 * `optional`, no paywall need ever use it. */
export interface ScriptOptions {
    keepOpen?: boolean;
    optional?: boolean;
}

interface Script extends ScriptOptions {
    actions: PaywallAction[];
}

/** A paywall presenter for tests: each paywall shown is recorded in `shown`, and the actions
 * scripted for it (`then`) are performed on it in order, as a user would.
 *
 * A script that runs out with its paywall still on screen fails the test at once (a cancelled
 * purchase or a restore that finds nothing leaves a real paywall up, and `register` would wait
 * for it): the calls waiting on the bridge reject with `PaywallScriptError`, naming the paywall
 * and what each action answered. So does an action answered `failed` that the script did not
 * expect (`expectingFailure`). End such a script with `PaywallActions.close()`, or pass
 * `{ keepOpen: true }`. A paywall with no script is closed ("close", the default) or waits for
 * `nextPaywall()` ("wait").
 *
 * A paywall no `register` waits on (a deep link's, `app_launch`'s, a page's custom placement)
 * reaches the presenter after the call that caused it resolved: `await waitForPaywall()` takes it. */
export class PaywallDriver implements PaywallPresenter {
    readonly shown: PaywallPresentation[] = [];
    readonly answers: Record<string, unknown>[] = [];
    readonly dismissals: string[] = [];
    /** What went wrong, with why. */
    readonly failures: string[] = [];
    /** Failures no waiting call was rejected with (`TestBridge.close` reports them). */
    readonly unraisedFailures: string[] = [];
    private readonly script: Script[] = [];
    private readonly waiting: PaywallPresentation[] = [];
    private readonly waiters: ((presentation: PaywallPresentation) => void)[] = [];
    private superwall: Superwall | undefined;
    /** How many of `shown` a `waitForPaywall` has taken. */
    private taken = 0;

    constructor(private readonly unscripted: "close" | "wait" = "close") {}

    attach(superwall: Superwall): void {
        this.superwall = superwall;
    }

    /** What to do on the next paywall shown, in order; call it again for the paywall after.
     * A last argument of `{ keepOpen, optional }` says how the script may end. */
    then(...steps: (PaywallAction | ScriptOptions)[]): this {
        const last = steps.at(-1);
        const options = last !== undefined && !("type" in last) ? (steps.pop() as ScriptOptions) : {};
        this.script.push({ actions: steps as PaywallAction[], ...options });
        return this;
    }

    /** The scripts no paywall used, but those marked `optional`. */
    get unusedScripts(): string[] {
        return this.script.filter((script) => !script.optional).map((script) => describeScript(script.actions));
    }

    present(presentation: PaywallPresentation): void {
        this.shown.push(presentation);
        const script = this.script.shift() ?? (this.unscripted === "close" ? { actions: [PaywallActions.close()] } : undefined);
        if (script) {
            // After the answer to `paywall/present`, as a user acts on a paywall already up.
            setImmediate(() => void this.perform(script, presentation));
            return;
        }
        const waiter = this.waiters.shift();
        if (waiter) waiter(presentation); else this.waiting.push(presentation);
    }

    dismiss(dismissal: { sessionId: string }): void {
        this.dismissals.push(dismissal.sessionId);
    }

    /** The next paywall shown that no script acted on (`"wait"`); a driver that closes
     * unscripted paywalls answers `waitForPaywall()`. */
    nextPaywall(timeoutMs = 10_000): Promise<PaywallPresentation> {
        if (this.unscripted !== "wait") return this.waitForPaywall(undefined, timeoutMs);
        const ready = this.waiting.shift();
        if (ready) return Promise.resolve(ready);
        return new Promise((resolve, reject) => {
            const timer = setTimeout(() => reject(new Error(`no paywall was shown within ${timeoutMs} ms`)), timeoutMs);
            this.waiters.push((presentation) => { clearTimeout(timer); resolve(presentation); });
        });
    }

    /** The next paywall shown that no wait took yet, once every presentation asked for so far
     * has run (`awaitPresentations`): the paywall of a deep link, of `app_launch` or of a page's
     * custom placement, which come with no `register` waiting. With `by`, the next one presented
     * by that placement: its name (`"deepLink_open"`) or its id. Rejects naming what was shown and
     * what is on screen. */
    async waitForPaywall(by?: string, timeoutMs = 10_000): Promise<PaywallPresentation> {
        if (!this.superwall) throw new Error("PaywallDriver is not attached to a bridge: call attach(superwall) first");
        const onScreen = await this.superwall.awaitPresentations(timeoutMs);
        for (let index = this.taken; index < this.shown.length; index += 1) {
            const info = this.shown[index].paywall.info;
            if (by === undefined || by === info.presentedByPlacementWithName || by === info.presentedByPlacementWithId) {
                this.taken = index + 1;
                return this.shown[index];
            }
        }
        const shown = this.shown.map((presentation) => presentation.paywall.info.identifier);
        throw new Error(`no paywall was presented${by === undefined ? "" : ` by "${by}"`} once the presentations asked for so far had run; `
            + `shown: ${shown.length ? shown.join(", ") : "none"} (${this.taken} taken by earlier waits); `
            + `on screen: ${onScreen?.paywallInfo.identifier ?? "none"}`);
    }

    /** Performs `action` on `on` (the last paywall shown by default). */
    async act(action: PaywallAction, on?: PaywallPresentation): Promise<Record<string, unknown>> {
        if (!this.superwall) throw new Error("PaywallDriver is not attached to a bridge: call attach(superwall) first");
        const target = on ?? this.shown.at(-1);
        if (!target) throw new Error("no paywall was shown to act on");
        const { expectsFailure: _expected, ...wire } = action;
        const answer = await this.superwall.paywallAction(target.sessionId, wire);
        this.answers.push(answer);
        return answer;
    }

    private async perform(script: Script, presentation: PaywallPresentation): Promise<void> {
        const ran: string[] = [];
        for (const action of script.actions) {
            let answer: Record<string, unknown>;
            try {
                answer = await this.act(action, presentation);
            } catch (error) {
                this.fail(presentation, ran, `${describeAction(action)} threw ${String(error)}`);
                return;
            }
            const result = resultOf(answer);
            ran.push(`${describeAction(action)} → ${String(result.type ?? "{}")}`);
            if (result.type === "failed" && !action.expectsFailure) {
                this.fail(presentation, ran, `${describeAction(action)} was answered failed (${String(result.error ?? "no reason given")}); `
                    + "use PaywallActions.expectingFailure() if the test expects it");
                return;
            }
        }
        if (script.keepOpen) return;
        // The bridge asks for the dismissal before it answers the action that closed the paywall.
        for (let turn = 0; turn < 20 && !this.dismissals.includes(presentation.sessionId); turn += 1) {
            await new Promise<void>((resolve) => setImmediate(() => resolve()));
        }
        if (this.dismissals.includes(presentation.sessionId)) return;
        this.fail(presentation, ran, "it is still on screen after its script ran out; end the script with "
            + "PaywallActions.close(), or pass { keepOpen: true } to then() to go on with it");
    }

    private fail(presentation: PaywallPresentation, ran: string[], why: string): void {
        const message = `paywall "${presentation.paywall.info.identifier}" (session ${presentation.sessionId}): ${why}. `
            + `Actions: ${ran.length ? ran.join("; ") : "no action ran"}`;
        this.failures.push(message);
        const raised = this.superwall?.connection.failWaiting(new PaywallScriptError(message)) ?? 0;
        if (!raised) this.unraisedFailures.push(message);
    }
}

function resultOf(answer: Record<string, unknown>): Record<string, unknown> {
    const result = answer.result;
    return typeof result === "object" && result !== null ? result as Record<string, unknown> : answer;
}

function describeAction(action: PaywallAction): string {
    const argument = action.productId ?? action.name;
    return argument === undefined ? action.type : `${action.type} ${String(argument)}`;
}

function describeScript(actions: PaywallAction[]): string {
    return actions.map(describeAction).join(", ") || "(no actions)";
}

export interface RecordedEvent {
    event: TrackedEvent;
    params: Record<string, unknown>;
}

/** A delegate that records every event, with assertions that wait up to `withinMs` for an event
 * still on its way (events are notifications, which may arrive just after an answer). */
export class EventRecorder implements SuperwallDelegate {
    readonly events: RecordedEvent[] = [];

    handleSuperwallEvent(event: TrackedEvent, params: Record<string, unknown>): void {
        this.events.push({ event, params });
    }

    get names(): string[] {
        return this.events.map((recorded) => recorded.event.name);
    }

    count(name: string, params: Record<string, unknown> = {}): number {
        return this.events.filter((recorded) => matches(recorded, name, params)).length;
    }

    /** The first event named `name` whose params include `params`; `times` pins how many. */
    async assertTracked(name: string, params: Record<string, unknown> = {}, options: { withinMs?: number; times?: number } = {}): Promise<RecordedEvent> {
        const deadline = Date.now() + (options.withinMs ?? 2000);
        for (;;) {
            const found = this.events.filter((recorded) => matches(recorded, name, params));
            if (found.length && (options.times === undefined || found.length === options.times)) return found[0];
            if (Date.now() >= deadline) {
                const described = Object.keys(params).length ? ` with ${JSON.stringify(params)}` : "";
                throw new Error(found.length
                    ? `${name}${described} was tracked ${found.length} time(s), not ${options.times}`
                    : `${name}${described} was not tracked; tracked: ${JSON.stringify(this.names)}`);
            }
            await new Promise((resolve) => setTimeout(resolve, 10));
        }
    }

    assertNotTracked(name: string, params: Record<string, unknown> = {}): void {
        const found = this.count(name, params);
        if (found) throw new Error(`${name} was tracked ${found} time(s); tracked: ${JSON.stringify(this.names)}`);
    }

    /** `names` were tracked in this order (others may come between them). */
    assertOrder(...names: string[]): void {
        const tracked = this.names[Symbol.iterator]();
        for (const name of names) {
            let seen = false;
            for (const candidate of tracked) if (candidate === name) { seen = true; break; }
            if (!seen) throw new Error(`expected ${JSON.stringify(names)} in this order; tracked: ${JSON.stringify(this.names)}`);
        }
    }
}

function matches(recorded: RecordedEvent, name: string, params: Record<string, unknown>): boolean {
    return recorded.event.name === name
        && Object.entries(params).every(([key, value]) => JSON.stringify(recorded.params[key]) === JSON.stringify(value));
}

export interface TestBridge<Store extends PurchaseController = FakeStore, Presenter extends PaywallPresenter = PaywallDriver> {
    superwall: Superwall;
    /** The purchase controller: a `FakeStore`, or the app's own (`purchaseController`). */
    store: Store;
    /** The paywall presenter: a `PaywallDriver`, or the app's own (`paywallPresenter`). */
    driver: Presenter;
    /** Records every event, beside the app's own delegate when one is given. */
    events: EventRecorder;
    dataDirectory: string;
    /** Shuts the bridge down and removes its data directory (unless `keepDataDirectory`);
     * rejects with the callbacks that threw, the driver's failures no call was rejected with,
     * and a script no paywall used. */
    close(): Promise<void>;
}

export interface TestBridgeOptions<Store extends PurchaseController = FakeStore, Presenter extends PaywallPresenter = PaywallDriver> {
    /** The config source: the embedded demo app's unless given. */
    config?: ConfigureOptions["configSource"];
    /** `randomSeed`: 0 unless given, so every run draws the same variants. */
    seed?: number;
    /** More of `configure`'s options. */
    options?: ConfigureOptions;
    bridgePath?: string;
    /** How long every call waits, `register` included: 10 s. A call that times out says what
     * was still open (a paywall on screen, a purchase this client has not answered). */
    timeoutMs?: number;
    /** A placement the config lacks is skipped, as SuperwallKit skips it, instead of failing
     * the call with `UnknownPlacementError` (`unknownPlacements: "allow"`, for a test of that
     * very behaviour). By default a typo fails the call, naming the placement meant. */
    allowUnknownPlacements?: boolean;
    /** The app's own purchase controller, in place of a `FakeStore`. */
    purchaseController?: Store;
    /** The app's own delegate: it hears everything, and `events` records the events too. */
    delegate?: SuperwallDelegate;
    /** The app's own presenter, in place of a `PaywallDriver`. */
    paywallPresenter?: Presenter;
    /** Keep the data directory when the bridge closes (to read it after the test). */
    keepDataDirectory?: boolean;
}

/** A bridge for one test: configured in a data directory of its own (removed when it closes),
 * on the manual clock, with `randomSeed` (0 unless given), wired to a `FakeStore`, a
 * `PaywallDriver` and an `EventRecorder`, or to the app's own controller, presenter and
 * delegate where given. The checks hold whatever is passed: a placement the config lacks fails
 * the call, and a callback that throws fails the calls waiting and `close()`. */
export async function startTestBridge<Store extends PurchaseController = FakeStore, Presenter extends PaywallPresenter = PaywallDriver>(
    options: TestBridgeOptions<Store, Presenter> = {},
): Promise<TestBridge<Store, Presenter>> {
    const store = options.purchaseController ?? (new FakeStore() as unknown as Store);
    const driver = options.paywallPresenter ?? (new PaywallDriver() as unknown as Presenter);
    const events = new EventRecorder();
    const dataDirectory = mkdtempSync(join(tmpdir(), "superwall-test-"));
    const removeData = (): void => {
        if (!options.keepDataDirectory) rmSync(dataDirectory, { recursive: true, force: true });
    };
    let superwall: Superwall;
    try {
        superwall = await Superwall.configure({
            apiKey: "pk_test",
            bridgePath: options.bridgePath,
            timeoutMs: options.timeoutMs ?? 10_000,
            interactiveTimeoutMs: options.timeoutMs ?? 10_000,
            unknownPlacements: options.allowUnknownPlacements ? "allow" : "fail",
            purchaseController: store,
            paywallPresenter: driver,
            delegate: options.delegate ? recordingBeside(options.delegate, events) : events,
            options: {
                configSource: options.config ?? { type: "embedded" },
                dataDirectory,
                clock: "manual",
                randomSeed: options.seed ?? 0,
                ...options.options,
            },
        });
    } catch (error) {
        removeData();
        throw error;
    }
    if (store instanceof FakeStore) store.attach(superwall);
    if (driver instanceof PaywallDriver) driver.attach(superwall);
    const callbackErrors: string[] = [];
    superwall.connection.onCallbackError = (method, error) => {
        const message = `your callback for ${method} threw ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`;
        callbackErrors.push(message);
        superwall.connection.failWaiting(new CallbackError(message));
    };
    if (store instanceof FakeStore) await store.reportStatus();
    return {
        superwall, store, driver, events, dataDirectory,
        async close() {
            try {
                await superwall.close();
            } finally {
                removeData();
            }
            if (callbackErrors.length) throw new CallbackError(callbackErrors.join("; "));
            if (!(driver instanceof PaywallDriver)) return;
            if (driver.unraisedFailures.length) throw new PaywallScriptError(`paywall scripts failed: ${driver.unraisedFailures.join("; ")}`);
            const unused = driver.unusedScripts;
            if (unused.length) {
                const shown = driver.shown.map((presentation) => presentation.paywall.info.identifier);
                throw new PaywallScriptError(`driver.then(${unused[0]}) was never used: paywalls shown ${shown.length ? shown.join(", ") : "none"}; `
                    + "pass { optional: true } to then() for a script that may go unused");
            }
        },
    };
}

/** The app's delegate, with each event also recorded in `events`. */
function recordingBeside(delegate: SuperwallDelegate, events: EventRecorder): SuperwallDelegate {
    return new Proxy(delegate, {
        get(target, name) {
            if (name === "handleSuperwallEvent") {
                return (event: TrackedEvent, params: Record<string, unknown>) => {
                    events.handleSuperwallEvent(event, params);
                    return target.handleSuperwallEvent?.(event, params);
                };
            }
            const value: unknown = Reflect.get(target, name);
            return typeof value === "function" ? value.bind(target) : value;
        },
    });
}

/** One request the fake API received; the API key is masked (its first four characters, then …). */
export interface RecordedRequest {
    method: string;
    path: string;
    query: string;
    /** Header names are lowercased. */
    headers: Record<string, string>;
    body: string | null;
}

/** `superwall-bridge fake-api`: a local Superwall API in a child process, for HTTP-mode tests.
 * It serves the config (the embedded demo app's unless `config` is given, as a path or an
 * object), paywalls, assignments, the events collector, redemption and web entitlements, and
 * records every request. `script` scripts failures, delays and starting state (docs/testing.md).
 * Give a bridge `configSource: api.configSource`. */
export class FakeSuperwallAPI {
    readonly baseUrl: string;
    private readonly folder: string;
    private readonly child: ChildProcess;

    private constructor(baseUrl: string, folder: string, child: ChildProcess) {
        this.baseUrl = baseUrl;
        this.folder = folder;
        this.child = child;
    }

    static async start(options: {
        config?: string | Record<string, unknown>;
        script?: Record<string, unknown>;
        port?: number;
        bridgePath?: string;
    } = {}): Promise<FakeSuperwallAPI> {
        const folder = mkdtempSync(join(tmpdir(), "superwall-fake-api-"));
        const args = ["fake-api", "--record", join(folder, "requests.jsonl"), "--port", String(options.port ?? 0)];
        if (typeof options.config === "string") {
            args.push("--config", options.config);
        } else if (options.config) {
            writeFileSync(join(folder, "config.json"), JSON.stringify(options.config));
            args.push("--config", join(folder, "config.json"));
        }
        if (options.script) {
            writeFileSync(join(folder, "script.json"), JSON.stringify(options.script));
            args.push("--script", join(folder, "script.json"));
        }
        requireProc();
        const child = spawn(findBridge(options.bridgePath), args, { stdio: ["pipe", "pipe", "pipe"] });
        let stderr = "";
        child.stderr.on("data", (chunk: Buffer) => { stderr += chunk.toString(); });
        const firstLine = await new Promise<string>((resolve, reject) => {
            let text = "";
            const onData = (chunk: Buffer): void => {
                text += chunk.toString();
                const end = text.indexOf("\n");
                if (end >= 0) {
                    child.stdout.off("data", onData);
                    resolve(text.slice(0, end));
                }
            };
            child.stdout.on("data", onData);
            child.once("error", reject);
            child.once("exit", (code) => reject(new Error(`superwall-bridge fake-api did not start (exit ${code}): ${stderr.trim()}`)));
        }).catch((error: unknown) => {
            rmSync(folder, { recursive: true, force: true });
            throw error;
        });
        return new FakeSuperwallAPI((JSON.parse(firstLine) as { baseUrl: string }).baseUrl, folder, child);
    }

    /** `configure`'s `options.configSource` for this server. */
    get configSource(): { type: "http"; baseUrl: string } {
        return { type: "http", baseUrl: this.baseUrl };
    }

    /** Every request received so far, in order; only those for `path` (and `method`) when given. */
    requests(path?: string, method?: string): RecordedRequest[] {
        const record = join(this.folder, "requests.jsonl");
        if (!existsSync(record)) return [];
        return readFileSync(record, "utf8").split("\n").filter((line) => line)
            .map((line) => JSON.parse(line) as RecordedRequest)
            .filter((request) => (path === undefined || request.path === path) && (method === undefined || request.method === method));
    }

    /** Every event the bridge posted to the collector, in order: `{event_name, parameters, ...}`. */
    events(): Array<Record<string, unknown> & { event_name: string }> {
        return this.requests("/api/v1/events", "POST")
            .flatMap((post) => (JSON.parse(post.body ?? "{}") as { events: Array<Record<string, unknown> & { event_name: string }> }).events);
    }

    eventNames(): string[] {
        return this.events().map((event) => event.event_name);
    }

    /** Every assignment the bridge confirmed to the server: `{experiment_id, variant_id}`. */
    confirmedAssignments(): Array<{ experiment_id: string; variant_id: string }> {
        return this.requests("/api/v1/confirm_assignments", "POST")
            .flatMap((post) => (JSON.parse(post.body ?? "{}") as { assignments: Array<{ experiment_id: string; variant_id: string }> }).assignments);
    }

    /** Ends the server (end of input) and removes its files. */
    async close(): Promise<void> {
        if (this.child.exitCode === null && this.child.signalCode === null) {
            const exited = new Promise<void>((resolve) => this.child.once("exit", () => resolve()));
            this.child.stdin.end();
            const timer = setTimeout(() => this.child.kill("SIGKILL"), 10_000);
            await exited;
            clearTimeout(timer);
        }
        rmSync(this.folder, { recursive: true, force: true });
    }
}
