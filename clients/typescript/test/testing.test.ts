import { test } from "node:test";
import * as assert from "node:assert/strict";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { Superwall, UnknownPlacementError, type Product, type SubscriptionStatus, type SuperwallDelegate, type TrackedEvent } from "../src/index";
import type { PurchaseAnswer, RestoreAnswer } from "../src/superwall";
import { FakeSuperwallAPI, PaywallActions, startTestBridge } from "../src/testing";

const ANNUAL = "com.pockettrainer.pro.annual";
const PRO_WORKOUT = { workout_tier: "pro" };

test("a free user buys through the gate: the driver purchases, the store reports, the events say so", async () => {
    const bridge = await startTestBridge();
    try {
        await bridge.superwall.overrideAssignment("2002", "3004");
        bridge.driver.then(PaywallActions.purchase(ANNUAL));
        const result = await bridge.superwall.register({ placement: "start_workout", params: PRO_WORKOUT });
        assert.equal(result.outcome, "dismissed");
        assert.equal(result.featureGranted, true);
        assert.deepEqual(bridge.driver.shown.map((shown) => shown.paywall.info.identifier), ["pro-workouts-gated"]);
        assert.deepEqual(bridge.store.purchases, [ANNUAL]);
        await bridge.events.assertTracked("transaction_complete", { paywall_identifier: "pro-workouts-gated" });
        bridge.events.assertOrder("paywall_open", "transaction_start", "transaction_complete", "paywall_close");
        assert.equal((await bridge.superwall.getSubscriptionStatus()).type, "active");
    } finally {
        await bridge.close();
    }
});

test("an abandoned purchase leaves the gate closed, and an unscripted paywall is closed", async () => {
    const bridge = await startTestBridge();
    try {
        await bridge.superwall.overrideAssignment("2002", "3004");
        bridge.store.will(ANNUAL, "cancelled");
        bridge.driver.then(PaywallActions.purchase(ANNUAL), PaywallActions.close());
        const abandoned = await bridge.superwall.register({ placement: "start_workout", params: PRO_WORKOUT });
        assert.equal(abandoned.featureGranted, false);
        await bridge.events.assertTracked("transaction_abandon", {}, { times: 1 });
        bridge.events.assertNotTracked("transaction_complete");
        const unscripted = await bridge.superwall.register({ placement: "start_workout", params: PRO_WORKOUT });
        assert.equal(unscripted.outcome, "dismissed");
        assert.equal(bridge.driver.shown.length, 2);
    } finally {
        await bridge.close();
    }
});

test("the recorder says what was tracked when an event is missing; flushEvents writes them out", async () => {
    const bridge = await startTestBridge({ options: { eventFlushIntervalMs: 86_400_000, paywalls: { shouldPreload: false } } });
    try {
        await bridge.superwall.setUserAttributes({ plan: "gold" });
        await bridge.events.assertTracked("user_attributes");
        await assert.rejects(bridge.events.assertTracked("paywall_open", {}, { withinMs: 50 }), /paywall_open was not tracked; tracked: .*user_attributes/);
        const flushed = await bridge.superwall.flushEvents();
        const rows = readFileSync(join(bridge.dataDirectory, "events.jsonl"), "utf8").trim().split("\n");
        assert.equal(rows.length, flushed);
    } finally {
        await bridge.close();
    }
});

test("the same seed draws the same variants in two test bridges", async () => {
    const variants = async (): Promise<string[]> => {
        const bridge = await startTestBridge({ seed: 11 });
        try {
            const { assignments } = await bridge.superwall.call<{ assignments: { experimentId: string; variant: { id: string } }[] }>("getAssignments");
            return assignments.map((assignment) => `${assignment.experimentId}:${assignment.variant.id}`).sort();
        } finally {
            await bridge.close();
        }
    };
    const first = await variants();
    assert.ok(first.length > 0);
    assert.deepEqual(await variants(), first);
});

test("a bridge configured on the fake API: its config request is recorded with the key masked, a flush reaches its collector", async () => {
    const api = await FakeSuperwallAPI.start({ script: { assignments: [{ experimentId: "2001", variantId: "3001" }] } });
    const bridge = await startTestBridge({ config: api.configSource });
    try {
        const [config] = api.requests("/api/v1/static_config");
        assert.equal(config?.headers.authorization, "Bearer pk_t…");
        await bridge.superwall.identify("runner_1", { restorePaywallAssignments: true });
        const onboarding = (await bridge.superwall.getAssignments()).find((assignment) => assignment.experimentId === "2001");
        assert.equal(onboarding?.variant.id, "3001", "the server's assignment, not seed 0's 3002");
        await bridge.superwall.register({ placement: "open_coach_chat" });
        assert.ok((await bridge.superwall.flushEvents()) > 0);
        assert.ok(api.eventNames().includes("open_coach_chat"));
    } finally {
        await bridge.close();
        await api.close();
    }
});

test("a fake API script that cannot be read is refused with its place", async () => {
    await assert.rejects(FakeSuperwallAPI.start({ script: { answers: { "/api/v1/events": { status: "busy" } } } }),
        /\$\.answers\.\/api\/v1\/events\[0\]\.status/);
});

test("the app's own purchase controller and delegate drive a test bridge, and a misspelt placement still fails", async () => {
    const heard: string[] = [];
    const bought: string[] = [];
    let superwall: Superwall | undefined;
    const appStore = {
        async purchase(product: Product): Promise<PurchaseAnswer> {
            bought.push(product.productIdentifier);
            await superwall?.setSubscriptionStatus({ type: "active", entitlements: product.entitlements.map((e) => ({ id: e.id })) });
            return { type: "purchased" };
        },
        async restorePurchases(): Promise<RestoreAnswer> { return { type: "restored" }; },
    };
    class AppDelegate implements SuperwallDelegate {
        handleSuperwallEvent(event: TrackedEvent): void { heard.push(event.name); }
        subscriptionStatusDidChange(_from: SubscriptionStatus, to: SubscriptionStatus): void { heard.push(`status ${to.type}`); }
    }
    const started = await startTestBridge({ purchaseController: appStore, delegate: new AppDelegate() });
    superwall = started.superwall;
    try {
        assert.equal(started.store, appStore);
        await started.superwall.setSubscriptionStatus({ type: "inactive" });
        await started.superwall.overrideAssignment("2002", "3004");
        started.driver.then(PaywallActions.purchase(ANNUAL));
        const result = await started.superwall.register({ placement: "start_workout", params: PRO_WORKOUT });
        assert.equal(result.featureGranted, true);
        assert.deepEqual(bought, [ANNUAL]);
        await started.events.assertTracked("transaction_complete");
        assert.ok(heard.includes("transaction_complete") && heard.includes("status active"), JSON.stringify(heard));
        await assert.rejects(started.superwall.register({ placement: "start_workot" }), (error: unknown) =>
            error instanceof UnknownPlacementError && error.nearest === "start_workout");
    } finally {
        await started.close();
    }
});

test("a test bridge's data directory is removed when it closes, unless the test keeps it", async () => {
    const removed = await startTestBridge();
    await removed.superwall.register({ placement: "start_workout" });
    assert.ok(existsSync(removed.dataDirectory));
    await removed.close();
    assert.equal(existsSync(removed.dataDirectory), false);
    const kept = await startTestBridge({ keepDataDirectory: true });
    await kept.close();
    try {
        assert.ok(existsSync(join(kept.dataDirectory, "superwall.sqlite")));
    } finally {
        rmSync(kept.dataDirectory, { recursive: true, force: true });
    }
});

test("requestCallback sends a page's custom callback with its variables", () => {
    assert.deepEqual(PaywallActions.requestCallback("validate_promo_code", { code: "SPRING" }),
        { type: "requestCallback", name: "validate_promo_code", variables: { code: "SPRING" } });
});

test("waitForPaywall takes the paywall a deep link presented, and names what was shown when none came", async () => {
    const bridge = await startTestBridge();
    try {
        assert.equal(await bridge.superwall.handleDeepLink("pockettrainer://open?path=promo&offer=summer"), true);
        const presented = await bridge.driver.waitForPaywall("deepLink_open");
        assert.equal(presented.paywall.info.identifier, "summer-sale");
        assert.equal(presented.paywall.info.presentationSourceType, "implicit");
        // No audience of the campaign matches a winter offer: nothing more is presented.
        assert.equal(await bridge.superwall.handleDeepLink("pockettrainer://open?path=promo&offer=winter"), true);
        await assert.rejects(bridge.driver.waitForPaywall("deepLink_open"),
            /no paywall was presented by "deepLink_open" .*shown: summer-sale \(1 taken/);
        // The default driver closes what no script acted on; nextPaywall takes it all the same.
        await bridge.superwall.handleDeepLink("pockettrainer://open?path=promo&offer=summer");
        assert.equal((await bridge.driver.nextPaywall()).paywall.info.identifier, "summer-sale");
    } finally {
        await bridge.close();
    }
});
