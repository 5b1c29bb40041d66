/**
 * A fitness app's paywall tests with the TypeScript toolkit (superwall-bridge/testing), for
 * node:test. docs/testing.md walks through them; `make test` runs them against the embedded
 * demo app, Pocket Trainer:
 *
 *     SUPERWALL_BRIDGE=path/to/superwall-bridge node --test dist/examples/app.test.js
 *
 * An app imports "superwall-bridge/testing"; this example, built inside the client, imports
 * the same module by its path.
 */
import { test } from "node:test";
import * as assert from "node:assert/strict";
import { FakeSuperwallAPI, PaywallActions, startTestBridge, type TestBridge } from "../src/testing";

const ANNUAL = "com.pockettrainer.pro.annual";
const PRO_WORKOUT = { workout_tier: "pro" };

/** Runs `body` with a bridge of its own, closed afterwards (which fails on a failed paywall action). */
async function withBridge(body: (bridge: TestBridge) => Promise<void>, config?: { type: "http"; baseUrl: string }): Promise<void> {
    const bridge = await startTestBridge(config ? { config } : {});
    try {
        await body(bridge);
    } finally {
        await bridge.close();
    }
}

test("a free user meets the gate and buys pro", () => withBridge(async ({ superwall, driver, store, events }) => {
    // start_workout holds 20 % out; this test is about the 80 % who see the paywall.
    await superwall.overrideAssignment("2002", "3004");
    driver.then(PaywallActions.purchase(ANNUAL));

    const result = await superwall.register({ placement: "start_workout", params: PRO_WORKOUT });

    assert.equal(result.outcome, "dismissed");
    assert.equal(result.featureGranted, true);
    assert.deepEqual(store.purchases, [ANNUAL]);
    events.assertOrder("paywall_open", "transaction_start", "transaction_complete", "paywall_close");
    await events.assertTracked("transaction_complete", { product_id: ANNUAL });
}));

test("a subscriber goes straight in", () => withBridge(async ({ superwall, driver }) => {
    await superwall.setSubscriptionStatus({ type: "active", entitlements: [{ id: "pro" }] });

    const result = await superwall.register({ placement: "start_workout", params: PRO_WORKOUT });

    assert.equal(result.outcome, "skipped");
    assert.equal(result.featureGranted, true);
    assert.equal(driver.shown.length, 0);
}));

test("the daily-limit offer shows once an hour", () => withBridge(async ({ superwall, driver }) => {
    await superwall.setUserAttributes({ workouts_completed: 5 });

    assert.equal((await superwall.register({ placement: "daily_limit_reached" })).outcome, "dismissed");
    assert.equal((await superwall.register({ placement: "daily_limit_reached" })).outcome, "skipped");
    await superwall.advanceClock(3601); // the manual clock: an hour passes at once
    assert.equal((await superwall.register({ placement: "daily_limit_reached" })).outcome, "dismissed");
    assert.equal(driver.shown.length, 2);
}));

test("a restore brings pro back", () => withBridge(async ({ superwall, store }) => {
    store.restorable = ["pro"];

    assert.equal((await superwall.restorePurchases()).type, "restored");
    assert.equal((await superwall.getSubscriptionStatus()).type, "active");
}));

test("the seed decides the onboarding variant, and a test can force the other", () => withBridge(async ({ superwall }) => {
    // Seed 0 (startTestBridge's default) draws the monthly trial, in every run.
    assert.equal((await superwall.getPresentationResult("onboarding_complete")).experiment?.variant.id, "3002");
    await superwall.overrideAssignment("2001", "3001");
    assert.equal((await superwall.getPresentationResult("onboarding_complete")).experiment?.variant.id, "3001");
}));

test("over HTTP the server's variant wins and events reach the collector", async () => {
    // A local fake of the Superwall API, which starts out holding the user's onboarding variant.
    const api = await FakeSuperwallAPI.start({ script: { assignments: [{ experimentId: "2001", variantId: "3001" }] } });
    try {
        await withBridge(async ({ superwall }) => {
            await superwall.identify("runner_1", { restorePaywallAssignments: true });
            assert.equal((await superwall.getPresentationResult("onboarding_complete")).experiment?.variant.id, "3001");

            await superwall.register({ placement: "open_coach_chat" });
            await superwall.flushEvents();

            assert.ok(api.eventNames().includes("open_coach_chat"));
            assert.equal(api.requests("/api/v1/static_config")[0]?.headers.authorization, "Bearer pk_t…");
        }, api.configSource);
    } finally {
        await api.close();
    }
});
