// The TypeScript client against the real binary (SUPERWALL_BRIDGE, or the checkout's debug build).
import { test } from "node:test";
import * as assert from "node:assert/strict";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
    BridgeClosedError, BridgeError, BridgeTimeoutError, Connection, Superwall, decisionGate, findBridge, formatDecision, type PaywallPresentation, type PaywallPresenter,
    type PaywallPresentSurveyParams, type PurchaseController, type TrackedEvent, type Assignment,
} from "../src/index";
import { eventually, scratchDirectory } from "./support";

function dataDirectory(): string {
    return scratchDirectory("superwall-ts-");
}

function embedded(): { configSource: { type: "embedded" }; dataDirectory: string } {
    return { configSource: { type: "embedded" }, dataDirectory: dataDirectory() };
}

test("configure, identify and attributes round-trip through the bridge", async () => {
    const superwall = await Superwall.configure({ apiKey: "pk_ts", options: embedded() });
    try {
        assert.equal(Superwall.shared, superwall);
        assert.equal(superwall.server.protocolVersion, "1.0");
        await superwall.identify("runner_7");
        const attributes = await superwall.setUserAttributes({ plan: "free", workouts: 3 });
        assert.equal(attributes.plan, "free");
        assert.equal((await superwall.getUserAttributes()).workouts, 3);
    } finally {
        assert.equal(await superwall.close(), 0);
    }
    assert.equal(Superwall.shared, undefined);
});

test("the log level, the locale override and the options in effect read back what was set", async () => {
    const superwall = await Superwall.configure({ apiKey: "pk_ts", options: embedded() });
    try {
        await superwall.setLogLevel("error");
        assert.equal(await superwall.getLogLevel(), "error");
        assert.equal(await superwall.getLocaleIdentifier(), null);
        await superwall.setLocaleIdentifier("fr_FR");
        assert.equal(await superwall.getLocaleIdentifier(), "fr_FR");
        const options = await superwall.getOptions();
        assert.equal(options.localeIdentifier, "fr_FR");
        assert.equal(options.logLevel, 40);
        assert.equal(await superwall.openRestoreOnWeb(), "https://pockettrainer.superwall.app/manage");
        await superwall.dismissForNextPaywall();
    } finally {
        await superwall.close();
    }
});

test("a purchase the app made itself is observed into the customer info, and purchase is refused meanwhile", async () => {
    const superwall = await Superwall.configure({ apiKey: "pk_ts", options: { ...embedded(), shouldObservePurchases: true } });
    try {
        await assert.rejects(superwall.purchase("com.pockettrainer.coach.monthly"),
            (error: unknown) => error instanceof BridgeError && error.kind === "observingPurchases");
        await assert.rejects(superwall.observePurchaseResult("cancelled"),
            (error: unknown) => error instanceof BridgeError && error.kind === "observedPurchaseNotStarted");
        await superwall.observePurchaseStart("com.pockettrainer.coach.monthly");
        await superwall.observePurchaseResult({ type: "purchased", transaction: { transactionId: "app-store-88" } });
        const info = await superwall.getCustomerInfo();
        assert.deepEqual([...info.subscriptions, ...info.nonSubscriptions].map((transaction) => transaction.transactionId), ["app-store-88"]);
        await superwall.observePurchaseStart("com.pockettrainer.coach.monthly");
        await superwall.observePurchaseError("com.pockettrainer.coach.monthly", "network down");
    } finally {
        await superwall.close();
    }
});

test("turning event tracking off drops what waits, so a flush sends nothing", async () => {
    const superwall = await Superwall.configure({ apiKey: "pk_ts", options: embedded() });
    try {
        await superwall.setEventTrackingBehavior("none");
        assert.equal(await superwall.flushEvents(), 0);
        await assert.rejects(superwall.setEventTrackingBehavior("some" as "none"), (error: BridgeError) => error.kind === "invalidParams");
    } finally {
        await superwall.close();
    }
});

test("a placement that skips grants the feature and runs it", async () => {
    const superwall = await Superwall.configure({ apiKey: "pk_ts", options: embedded() });
    try {
        let ran = false;
        const skipped: string[] = [];
        const result = await superwall.register({
            placement: "workout_shared", feature: () => { ran = true; }, handler: { onSkip: (reason) => { skipped.push(reason.type); } },
        });
        assert.equal(result.outcome, "skipped");
        assert.equal(result.featureGranted, true);
        assert.ok(ran);
        assert.deepEqual(skipped, ["noAudienceMatch"]);
    } finally {
        await superwall.close();
    }
});

test("a gated paywall bought through the purchase controller grants the feature, and its callback answers", async () => {
    const shown: PaywallPresentation[] = [];
    const dismissed: string[] = [];
    const presenter: PaywallPresenter = {
        present: (presentation) => { shown.push(presentation); },
        dismiss: (dismissal) => { dismissed.push(dismissal.result.type); },
    };
    const bought: string[] = [];
    const controller: PurchaseController = {
        async purchase(product) {
            bought.push(product.productIdentifier);
            await Superwall.shared!.setSubscriptionStatus({ type: "active", entitlements: [{ id: "coach" }] });
            return { type: "purchased" };
        },
        restorePurchases: () => ({ type: "failed", error: "nothing" }),
    };
    const superwall = await Superwall.configure({ apiKey: "pk_ts", options: embedded(), paywallPresenter: presenter, purchaseController: controller });
    try {
        await superwall.setSubscriptionStatus({ type: "inactive" });
        let ran = false;
        const registering = superwall.register({
            placement: "open_coach_chat", feature: () => { ran = true; },
            handler: { onCustomCallback: (callback) => ({ status: "success", data: { echoed: callback.name } }) },
        });
        await eventually(() => shown.length === 1, "paywall/present");
        const sessionId = shown[0]!.sessionId;
        assert.equal(shown[0]!.paywall.info.identifier, "coach-upsell-gated");
        assert.equal(await superwall.isPaywallPresented(), true);
        assert.equal((await superwall.latestPaywallInfo())?.identifier, "coach-upsell-gated");
        // The page has not pinged: there is no ready page to put a spinner over.
        assert.equal(await superwall.togglePaywallSpinner(false), "loadingURL");
        const callback = await superwall.call<{ status: string; data: { echoed: string } }>("paywall/action", {
            sessionId, action: { type: "requestCallback", name: "check" },
        });
        assert.deepEqual(callback, { status: "success", data: { echoed: "check" } });
        await superwall.call("paywall/action", { sessionId, action: { type: "purchase", productId: "com.pockettrainer.coach.monthly" } });
        const result = await registering;
        assert.equal(result.featureGranted, true);
        assert.ok(ran);
        assert.deepEqual(bought, ["com.pockettrainer.coach.monthly"]);
        assert.deepEqual(dismissed, ["purchased"]);
        assert.equal(await superwall.isPaywallPresented(), false);
        assert.equal((await superwall.latestPaywallInfo())?.identifier, "coach-upsell-gated");
        assert.equal(await superwall.togglePaywallSpinner(true), null);
        const entitlements = await superwall.getEntitlements();
        assert.deepEqual(entitlements.active.map((entitlement) => entitlement.id), ["coach"]);
    } finally {
        await superwall.close();
    }
});

test("an error reply rejects with its stable kind", async () => {
    const superwall = await Superwall.launch();
    try {
        await assert.rejects(superwall.identify("someone"), (error: unknown) => error instanceof BridgeError && error.kind === "notConfigured");
        await assert.rejects(superwall.call("register", { placement: "paywall_open" }), (error: unknown) =>
            error instanceof BridgeError && (error.kind === "notConfigured" || error.kind === "reservedPlacementName"));
    } finally {
        await superwall.close();
    }
});

test("a config that fails to load rejects configure with a BridgeError naming its kind", async () => {
    const missing = join(dataDirectory(), "no-such-config.json");
    await assert.rejects(
        Superwall.configure({ apiKey: "pk_ts", options: { configSource: { type: "file", path: missing }, dataDirectory: dataDirectory() } }),
        (error: unknown) => error instanceof BridgeError && typeof error.kind === "string" && error.kind !== "unknown" && /no-such-config/.test(error.message),
    );
});

test("a call that outlives its timeout rejects, and the bridge is told to cancel it", async () => {
    const superwall = await Superwall.configure({ apiKey: "pk_ts", options: embedded() });
    try {
        // A registered placement that presents, with no presenter capability, still answers;
        // so the slow call here is debug/echo with a client timeout far below its round trip.
        await assert.rejects(superwall.call("debug/echo", { payload: "x".repeat(1_000_000) }, 1), (error: unknown) => error instanceof BridgeTimeoutError);
        assert.equal((await superwall.getUserAttributes()).aliasId !== undefined, true);
    } finally {
        await superwall.close();
    }
});

test("a bridge that exits rejects every pending call", async () => {
    const connection = Connection.spawn(findBridge());
    await connection.request("initialize", { protocolVersion: "1.0" });
    const pending = connection.request("configure", { apiKey: "pk", options: embedded() });
    connection.closeInput();
    const late = connection.request("getConfigurationStatus");
    const outcomes = await Promise.allSettled([pending, late]);
    assert.equal(await connection.exited, 0);
    // The configure was read before the end of input and is answered; the call after it is not.
    assert.equal(outcomes[1].status, "rejected");
    await assert.rejects(connection.request("getUserId"), (error: unknown) => error instanceof BridgeClosedError);
});

test("a throwing callback becomes an error reply, never an unhandled rejection", async () => {
    const unhandled: unknown[] = [];
    process.on("unhandledRejection", (reason) => unhandled.push(reason));
    const presenter: PaywallPresenter = {
        present: () => { throw new Error("the screen is busy"); },
        dismiss: () => undefined,
    };
    const superwall = await Superwall.configure({ apiKey: "pk_ts", options: embedded(), paywallPresenter: presenter });
    try {
        const result = await superwall.register({ placement: "open_coach_chat" });
        assert.equal(result.outcome, "error");
        assert.equal(result.error?.data?.kind, "noPresenter");
        assert.equal(result.featureGranted, false);
    } finally {
        await superwall.close();
    }
    assert.deepEqual(unhandled, []);
});

test("the page's state the presenter reads at dismissal is the paywall info's state", async () => {
    const presenter: PaywallPresenter = {
        present: (presentation) => { setImmediate(() => void superwall.paywallAction(presentation.sessionId, { type: "close" })); },
        dismiss: () => ({ plan: "annual", step: 2 }),
    };
    const superwall = await Superwall.configure({ apiKey: "pk_ts", options: embedded(), paywallPresenter: presenter });
    try {
        const result = await superwall.register({ placement: "open_coach_chat" });
        assert.equal(result.outcome, "dismissed");
        assert.deepEqual(result.paywallInfo?.state, { plan: "annual", step: 2 });
    } finally {
        await superwall.close();
    }
});

test("both framings speak the same protocol", async () => {
    for (const framing of ["ndjson", "content-length"] as const) {
        const superwall = await Superwall.configure({ apiKey: "pk_ts", options: embedded(), framing });
        try {
            assert.equal((await superwall.register({ placement: "workout_shared" })).outcome, "skipped");
        } finally {
            assert.equal(await superwall.close(), 0);
        }
    }
});

test("the README's quick start runs as written", async () => {
    const { spawn } = await import("node:child_process");
    const readme = (await import("node:fs")).readFileSync(join(__dirname, "..", "..", "README.md"), "utf8");
    const example = (await import("node:fs")).readFileSync(join(__dirname, "..", "..", "examples", "quickstart.mjs"), "utf8");
    const block = /```js\n([\s\S]*?)```/.exec(readme)?.[1];
    assert.equal(block, example, "the README's quick start is examples/quickstart.mjs");
    const child = spawn("node", [join(__dirname, "..", "..", "examples", "quickstart.mjs")], { env: process.env, stdio: ["pipe", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk) => { output += chunk.toString("utf8"); });
    const code = await new Promise<number | null>((resolve) => child.on("exit", (status) => resolve(status)));
    assert.equal(code, 0);
    assert.equal(output, "the feature runs\nskipped true\n");
});

test("the delegate hears each tracked event with its name, and config refreshes reach their listener", async () => {
    const names: string[] = [];
    const superwall = await Superwall.configure({
        apiKey: "pk_ts", options: embedded(), delegate: { handleSuperwallEvent: (event) => { names.push(event.name); } },
    });
    try {
        await superwall.register({ placement: "workout_shared" });
        await eventually(() => names.includes("trigger_fire"), "trigger_fire through the delegate");
        assert.ok(names.includes("app_install"));
        const refreshes: Array<string | null> = [];
        superwall.onConfigDidRefresh((refresh) => { refreshes.push(refresh.buildId); });
        const refresh = await superwall.refreshConfiguration();
        await eventually(() => refreshes.length === 1, "config/didRefresh");
        assert.equal(refreshes[0], refresh.buildId);
    } finally {
        await superwall.close();
    }
});

test("a host reads the page events it passes on, and gets the script to evaluate", async () => {
    const { accept64Script, decodePageEvents } = await import("../src/index");
    const passed: string[] = [];
    const presenter: PaywallPresenter = {
        present: () => undefined,
        dismiss: () => undefined,
        pageEvent: (_sessionId, accept64) => { passed.push(accept64); },
    };
    const shown: PaywallPresentation[] = [];
    const showing: PaywallPresenter = { ...presenter, present: (presentation) => { shown.push(presentation); } };
    const superwall = await Superwall.configure({ apiKey: "pk_ts", options: embedded(), paywallPresenter: showing });
    try {
        void superwall.register({ placement: "open_coach_chat" });
        await eventually(() => shown.length === 1, "paywall/present");
        const sessionId = shown[0]!.sessionId;
        assert.equal(await superwall.pageMessage(sessionId, JSON.stringify({ version: 1, payload: { events: [{ event_name: "ping", version: "1" }] } })), 1);
        await eventually(() => passed.some((text) => decodePageEvents(text).some((event) => event.event_name === "paywall_open")), "paywall_open");
        const names = passed.flatMap((text) => decodePageEvents(text).map((event) => event.event_name));
        assert.deepEqual(names.slice(0, 5), ["event_tracking_behavior", "products", "template_variables", "template_substitutions_prefix", "experiment"]);
        assert.equal(accept64Script("QQ=="), 'window.paywall.accept64("QQ==");');
        await superwall.call("paywall/action", { sessionId, action: { type: "close" } });
    } finally {
        await superwall.close();
    }
});

test("preloading loads the paywalls a user could see and a presenter with preload warms each once", async () => {
    const warmed: string[] = [];
    const presenter: PaywallPresenter = {
        present: () => {}, dismiss: () => {},
        preload: (paywall) => { warmed.push(paywall.identifier); assert.ok(paywall.page.load?.url.endsWith(paywall.identifier)); },
    };
    const superwall = await Superwall.configure({
        apiKey: "pk_ts", options: { ...embedded(), paywalls: { shouldPreload: false } }, paywallPresenter: presenter,
    });
    try {
        assert.deepEqual(warmed, []);
        const preloaded = await superwall.preloadAllPaywalls();
        assert.ok(preloaded.length > 0);
        assert.deepEqual(warmed, preloaded);
        assert.deepEqual(await superwall.preloadAllPaywalls(), preloaded);
        assert.equal(warmed.length, preloaded.length);
        assert.deepEqual(await superwall.preloadPaywalls(["no_such_placement"]), []);
    } finally {
        await superwall.close();
    }
});

test("getPaywall hands back the paywall with SuperwallKit's overrides applied, and refuses an unknown product", async () => {
    const superwall = await Superwall.configure({ apiKey: "pk_ts", options: embedded() });
    try {
        const dismissed: string[] = [];
        const shown = await superwall.getPaywall({
            placement: "open_coach_chat",
            overrides: { productsByName: { primary: "com.pockettrainer.pro.annual" }, presentationStyle: { type: "drawer", height: 70 } },
            handler: { onDismiss: (info) => { dismissed.push(info.identifier); } },
        });
        assert.equal(shown.paywall.products[0]?.productIdentifier, "com.pockettrainer.pro.annual");
        assert.equal(shown.paywall.presentationStyle?.type, "drawer");
        assert.equal(shown.paywall.presentationStyle?.height, 70);
        await superwall.dismiss();
        await eventually(() => dismissed.length === 1, "the handler's onDismiss");
        await assert.rejects(
            superwall.getPaywall({ placement: "open_coach_chat", overrides: { productsByName: { primary: "com.nowhere" } } }),
            (error: BridgeError) => error.kind === "productNotFound");
    } finally {
        await superwall.close();
    }
});

test("a paywall's survey is shown through presentSurvey, and the delegate hears the typed response", async () => {
    const shown: PaywallPresentation[] = [];
    const asked: PaywallPresentSurveyParams[] = [];
    const events: TrackedEvent[] = [];
    const presenter: PaywallPresenter = {
        present: (presentation) => { shown.push(presentation); },
        dismiss: () => {},
        presentSurvey: (request) => {
            asked.push(request);
            return { type: "response", optionId: "not-now" };
        },
    };
    const config = join(__dirname, "..", "..", "..", "..", "protocol", "conformance", "configs", "demo-survey.json");
    const superwall = await Superwall.configure({
        apiKey: "pk_ts", options: { configSource: { type: "file", path: config }, dataDirectory: dataDirectory() }, paywallPresenter: presenter,
        delegate: { handleSuperwallEvent: (event) => { events.push(event); } },
    });
    try {
        const registering = superwall.register({ placement: "open_coach_chat" });
        await eventually(() => shown.length === 1, "paywall/present");
        assert.equal(shown[0]!.paywall.info.surveys[0]?.presentationCondition, "onManualClose");
        await superwall.call("paywall/action", { sessionId: shown[0]!.sessionId, action: { type: "close" } });
        const result = await registering;
        assert.equal(result.outcome, "dismissed");
        assert.equal(asked.length, 1);
        assert.equal(asked[0]!.survey.id, "survey-coach-close");
        assert.equal(asked[0]!.paywallInfo.identifier, "coach-upsell-gated");
        await eventually(() => events.some((event) => event.name === "paywall_close"), "paywall_close");
        const response = events.find((event) => event.name === "survey_response");
        assert.deepEqual(response?.selectedOption, { id: "not-now", title: "Not right now" });
        assert.equal(response?.survey?.assignmentKey, "coach-close-2026-11");
        assert.equal(response?.customResponse, null);
    } finally {
        await superwall.close();
    }
});

test("explainPlacement says why, with the rule's tree, and a manual clock moves only when advanced", async () => {
    const superwall = await Superwall.configure({ apiKey: "pk_ts", options: { ...embedded(), clock: "manual" } });
    try {
        const explanation = await superwall.explainPlacement("daily_limit_reached", { user: { workouts_completed: 5 } });
        assert.equal(explanation.outcome, "paywall");
        assert.equal(explanation.featureGranted, false);
        assert.equal(explanation.paywall?.identifier, "limit-reached-promo-code");
        const rule = explanation.audiences[0].rule;
        assert.ok(rule?.matches);
        assert.equal(rule?.tree.children[0].text, "user.workouts_completed >= 3");
        assert.equal(rule?.tree.children[0].children[0].valueText, "5");
        const start = await superwall.advanceClock(0);
        const later = await superwall.advanceClock(90);
        assert.equal(later.nowMs - start.nowMs, 90_000);
    } finally {
        assert.equal(await superwall.close(), 0);
    }
});

test("a decision record says why gate by gate, prints readably, and the recent ones are kept", async () => {
    const superwall = await Superwall.configure({ apiKey: "pk_ts", options: embedded() });
    try {
        await superwall.setUserAttributes({ workouts_completed: 5 });
        const asked = await superwall.getPresentationResult("daily_limit_reached", undefined, { explain: true });
        const decision = asked.decision;
        if (decision === undefined) throw new Error("getPresentationResult answered no decision");
        assert.deepEqual(decision.gates.map((gate) => gate.gate), ["config", "subscriptionStatus", "placement", "audiences", "experiment", "paywall"]);
        assert.equal(decision.outcome, "paywall");
        assert.equal(decisionGate(decision, "paywall")?.read.paywallIdentifier, "limit-reached-promo-code");
        const text = formatDecision(decision);
        assert.match(text, /^#\d+ getPresentationResult daily_limit_reached\n/);
        assert.match(text, /✓ audiences: the audience of experiment/);
        assert.match(text, /user\.workouts_completed {2}→ 5/, text);
        assert.equal((await superwall.getPresentationResult("daily_limit_reached")).decision, undefined);
        await assert.rejects(
            superwall.getPaywall({ placement: "daily_limit_reachd", explain: true }),
            (error: unknown) => error instanceof BridgeError && decisionGate(error.decision!, "placement")?.read.nearestPlacement === "daily_limit_reached",
        );
        const recent = await superwall.recentDecisions();
        assert.equal(recent.recordsEveryDecision, false);
        assert.deepEqual(recent.decisions.map((kept) => [kept.call, kept.placement]), [["getPresentationResult", "daily_limit_reached"], ["getPaywall", "daily_limit_reachd"]]);
        await assert.rejects(superwall.recentDecisions(0), (error: unknown) => error instanceof BridgeError && error.kind === "invalidParams");
    } finally {
        assert.equal(await superwall.close(), 0);
    }
});

test("advanceClock on the system clock rejects with kind clockNotManual", async () => {
    const superwall = await Superwall.configure({ apiKey: "pk_ts", options: embedded() });
    try {
        await assert.rejects(superwall.advanceClock(1), (error: unknown) => error instanceof BridgeError && error.kind === "clockNotManual");
    } finally {
        assert.equal(await superwall.close(), 0);
    }
});

test("a seed repeats the variants, a forced variant decides the placement, and flushEvents writes the queue out", async () => {
    const variants = async (): Promise<string[]> => {
        const superwall = await Superwall.configure({ apiKey: "pk_ts", options: { ...embedded(), randomSeed: 2026 } });
        try {
            const assignments = await superwall.call<{ assignments: Assignment[] }>("getAssignments");
            return assignments.assignments.map((assignment) => `${assignment.experimentId}:${assignment.variant.id}`).sort();
        } finally {
            assert.equal(await superwall.close(), 0);
        }
    };
    const first = await variants();
    assert.ok(first.length > 0);
    assert.deepEqual(await variants(), first);

    const options = embedded();
    const superwall = await Superwall.configure({ apiKey: "pk_ts", options: { ...options, eventFlushIntervalMs: 86_400_000, paywalls: { shouldPreload: false } } });
    try {
        const forced = await superwall.overrideAssignment("2001", "3002");
        assert.equal(forced.variant.id, "3002");
        assert.equal(forced.isSentToServer, true);
        const result = await superwall.getPresentationResult("onboarding_complete");
        assert.equal(result.experiment?.variant.id, "3002");
        await assert.rejects(superwall.overrideAssignment("9999", "3002"),
            (error: unknown) => error instanceof BridgeError && error.kind === "invalidParams" && (error.data as { path?: string }).path === "params.experimentId");
        await superwall.setUserAttributes({ plan: "gold" });
        const flushed = await superwall.flushEvents();
        assert.ok(flushed > 0);
        const lines = readFileSync(join(String(options.dataDirectory), "events.jsonl"), "utf8").trim().split("\n");
        assert.equal(lines.length, flushed);
        assert.equal(await superwall.flushEvents(), 0);
    } finally {
        assert.equal(await superwall.close(), 0);
    }
});

test("a testModeUI chooses how simulated purchases end and what a simulated restore finds", async () => {
    const outcomes: Array<"purchased" | "abandoned" | "failed"> = ["abandoned", "failed", "purchased"];
    const restores: Array<string[] | null> = [["pro"], null];
    const offered: string[][] = [];
    const superwall = await Superwall.configure({
        apiKey: "pk_ts",
        options: { ...embedded(), testModeBehavior: "always" },
        testModeUI: {
            choosePurchaseOutcome: () => outcomes.shift() ?? "failed",
            chooseRestoredEntitlements: (available) => {
                offered.push(available);
                return restores.shift() ?? null;
            },
        },
    });
    try {
        const coach = "com.pockettrainer.coach.monthly";
        assert.equal((await superwall.purchase(coach)).type, "cancelled");
        const failed = await superwall.purchase(coach);
        assert.equal(failed.type, "failed");
        assert.equal((failed as { error?: string }).error, "Simulated purchase failure (test mode).");
        assert.equal((await superwall.purchase(coach)).type, "purchased");
        assert.equal((await superwall.restorePurchases()).type, "restored");
        assert.ok(offered[0]?.includes("coach"));
        const status = await superwall.getSubscriptionStatus();
        assert.deepEqual(status.type === "active" ? status.entitlements.map((entitlement) => entitlement.id) : [], ["pro"]);
        assert.equal((await superwall.restorePurchases()).type, "failed", "a cancelled restore fails");
    } finally {
        await superwall.close();
    }
});

test("a bridge of another protocol major fails launch at initialize, naming both versions", async () => {
    const folder = scratchDirectory("superwall-ts-future-");
    const bridge = join(folder, "future-bridge");
    // A stand-in bridge that answers initialize as a bridge of protocol 2.0 would.
    writeFileSync(bridge, `#!${process.execPath}
let text = "";
process.stdin.on("data", (chunk) => {
    text += chunk;
    for (let end; (end = text.indexOf("\\n")) >= 0; text = text.slice(end + 1)) {
        const message = JSON.parse(text.slice(0, end));
        if (message.method === "initialize") {
            process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id: message.id, result: { protocolVersion: "2.0", server: { name: "superwall-bridge", version: "9.0.0" }, sdkVersion: "9", methods: [] } }) + "\\n");
        }
    }
});
`);
    chmodSync(bridge, 0o755);
    await assert.rejects(Superwall.launch({ bridgePath: bridge }), (error: unknown) =>
        error instanceof BridgeError && error.kind === "unsupportedProtocolVersion"
        && /speaks protocol 1\.0 .* protocol 2\.0/.test(error.message));
});

test("a binary planted in a parent of the working directory is never run", () => {
    const root = scratchDirectory("superwall-planted-");
    const marker = join(root, "planted-code-ran");
    const planted = join(root, ".build", "debug", "superwall-bridge");
    mkdirSync(join(root, ".build", "debug"), { recursive: true });
    writeFileSync(planted, `#!/bin/sh\ntouch ${marker}\n`);
    chmodSync(planted, 0o755);
    const working = join(root, "app", "deep");
    mkdirSync(working, { recursive: true });
    const saved = { cwd: process.cwd(), bridge: process.env.SUPERWALL_BRIDGE, path: process.env.PATH };
    process.chdir(working);
    delete process.env.SUPERWALL_BRIDGE;
    process.env.PATH = "/usr/bin:/bin";
    let found: string | undefined;
    try {
        found = findBridge();
    } catch {
        found = undefined;
    } finally {
        process.chdir(saved.cwd);
        if (saved.bridge === undefined) delete process.env.SUPERWALL_BRIDGE;
        else process.env.SUPERWALL_BRIDGE = saved.bridge;
        process.env.PATH = saved.path;
    }
    assert.notEqual(found, planted);
    assert.ok(!found?.startsWith(root), `found ${found}`);
    assert.ok(!existsSync(marker));
});

test("the client has a method for every call the protocol takes from a client, but the deliberate exceptions", () => {
    const spec = JSON.parse(readFileSync(join(__dirname, "..", "..", "..", "..", "protocol", "openrpc.json"), "utf8")) as {
        methods: { name: string; tags?: { name: string }[] }[];
    };
    // Each protocol method's name in this client: the last path part, camelCased (`paywall/action`
    // is `paywallAction`, `debug/explainPlacement` is `explainPlacement`).
    const clientName = (method: string): string => {
        const [first, ...rest] = method.split("/");
        if (first === "debug") return rest.join("");
        return [first, ...rest.map((part) => part[0].toUpperCase() + part.slice(1))].join("");
    };
    const exceptions: Record<string, string> = {
        configure: "Superwall.configure starts the bridge and configures it",
        "debug/echo": "a transport check, not an SDK call",
        "debug/evaluateExpression": "an editor's rule check; `call` reaches it",
        "app/didBecomeActive": "appDidBecomeActive",
        "app/willResignActive": "appWillResignActive",
        "paywall/pageMessage": "pageMessage",
        "paywall/pageLoad": "pageLoad",
    };
    const prototype = Superwall.prototype as unknown as Record<string, unknown>;
    const missing = spec.methods
        .filter((method) => method.tags?.some((tag) => tag.name === "client-to-bridge"))
        .map((method) => method.name)
        .filter((name) => !(name in exceptions) && typeof prototype[clientName(name)] !== "function");
    assert.deepEqual(missing, []);
    for (const [name, alias] of Object.entries(exceptions)) {
        if (/^[a-z][A-Za-z]*$/.test(alias)) assert.equal(typeof prototype[alias], "function", `${name} is ${alias}`);
    }
});

test("the delegate can be set and replaced after launch", async () => {
    const heard: string[] = [];
    const superwall = await Superwall.configure({ apiKey: "pk_ts", options: embedded() });
    try {
        await superwall.setDelegate({ handleSuperwallEvent: (event) => { heard.push(`first ${event.name}`); } });
        await superwall.setUserAttributes({ plan: "free" });
        await eventually(() => heard.includes("first user_attributes"), "the first delegate's event");
        await superwall.setDelegate({ handleSuperwallEvent: (event) => { heard.push(`second ${event.name}`); } });
        await superwall.setUserAttributes({ plan: "gold" });
        await eventually(() => heard.includes("second user_attributes"), "the second delegate's event");
        assert.equal(heard.filter((line) => line === "first user_attributes").length, 1);
        assert.equal((await superwall.getUserId()).isLoggedIn, false);
        assert.equal(await superwall.getConfigurationStatus(), "configured");
        assert.equal(await superwall.getStoreFrontCountryCode(), null);
        assert.ok((await superwall.getProducts()).length > 0);
        assert.equal((await superwall.setIntegrationAttributes({ adjustId: "adj-1" })).adjustId, "adj-1");
    } finally {
        await superwall.close();
    }
});
