import { test } from "node:test";
import * as assert from "node:assert/strict";
import { CallbackError, PaywallActions, PaywallScriptError, startTestBridge, type TestBridge } from "../src/testing";

const ANNUAL = "com.pockettrainer.pro.annual";
const PRO_WORKOUT = { workout_tier: "pro" };

/** A bridge showing start_workout's paywall, and how long `register` took to fail, with why. */
async function registerFailure(script: (bridge: TestBridge) => void): Promise<{ error: Error; tookMs: number; bridge: TestBridge }> {
    const bridge = await startTestBridge();
    await bridge.superwall.overrideAssignment("2002", "3004");
    script(bridge);
    const started = Date.now();
    const error = await bridge.superwall.register({ placement: "start_workout", params: PRO_WORKOUT }).then(
        () => assert.fail("register should have failed"),
        (failure: Error) => failure,
    );
    return { error, tookMs: Date.now() - started, bridge };
}

async function closeQuietly(bridge: TestBridge): Promise<void> {
    await bridge.close().catch(() => undefined);
}

test("a cancelled purchase that leaves the paywall up fails register at once, naming the paywall", async () => {
    const { error, tookMs, bridge } = await registerFailure((bridge) => {
        bridge.store.will(ANNUAL, "cancelled");
        bridge.driver.then(PaywallActions.purchase(ANNUAL));
    });
    await closeQuietly(bridge);
    assert.ok(error instanceof PaywallScriptError, String(error));
    assert.match(error.message, /paywall "pro-workouts-gated".*still on screen after its script ran out/);
    assert.match(error.message, /purchase com\.pockettrainer\.pro\.annual → cancelled/);
    assert.ok(tookMs < 10_000, `took ${tookMs} ms`);
});

test("a restore that finds nothing fails register at once", async () => {
    const { error, tookMs, bridge } = await registerFailure((bridge) => bridge.driver.then(PaywallActions.restore()));
    await closeQuietly(bridge);
    assert.ok(error instanceof PaywallScriptError, String(error));
    assert.match(error.message, /paywall "pro-workouts-gated".*Actions: restore → /);
    assert.ok(tookMs < 10_000, `took ${tookMs} ms`);
});

test("a mistyped product is answered failed, which fails the test unless expected", async () => {
    const { error, tookMs, bridge } = await registerFailure((bridge) =>
        bridge.driver.then(PaywallActions.purchase("com.pockettrainer.pro.anual")));
    await closeQuietly(bridge);
    assert.ok(error instanceof PaywallScriptError, String(error));
    assert.match(error.message, /purchase com\.pockettrainer\.pro\.anual was answered failed/);
    assert.ok(tookMs < 10_000, `took ${tookMs} ms`);

    const expecting = await startTestBridge();
    try {
        await expecting.superwall.overrideAssignment("2002", "3004");
        expecting.driver.then(PaywallActions.expectingFailure(PaywallActions.purchase("com.pockettrainer.pro.anual")), PaywallActions.close());
        const result = await expecting.superwall.register({ placement: "start_workout", params: PRO_WORKOUT });
        assert.equal(result.featureGranted, false);
    } finally {
        await expecting.close();
    }
});

test("a script no paywall used fails the test at close, unless optional", async () => {
    const unused = await startTestBridge();
    unused.driver.then(PaywallActions.purchase(ANNUAL));
    await assert.rejects(unused.close(), /driver\.then\(purchase com\.pockettrainer\.pro\.annual\) was never used: paywalls shown none/);
    const optional = await startTestBridge();
    optional.driver.then(PaywallActions.purchase(ANNUAL), { optional: true });
    await optional.close();
});

test("a call that times out says which paywall is still up", async () => {
    const bridge = await startTestBridge({ timeoutMs: 5000 });
    try {
        await bridge.superwall.overrideAssignment("2002", "3004");
        bridge.driver.then({ keepOpen: true });
        await assert.rejects(
            bridge.superwall.register({ placement: "start_workout", params: PRO_WORKOUT }),
            /register got no answer within 5000 ms: paywall "pro-workouts-gated" \(session .*\) is still on screen/,
        );
    } finally {
        await closeQuietly(bridge);
    }
});

test("a mistyped placement fails the test bridge's call, naming the placement meant, unless allowed", async () => {
    const bridge = await startTestBridge();
    try {
        await assert.rejects(bridge.superwall.register({ placement: "Daily_limit_reachd" }),
            /no campaign of the config has the placement "Daily_limit_reachd"; did you mean "daily_limit_reached"\?/);
        await assert.rejects(bridge.superwall.getPresentationResult("daily_limit_reachd"), /did you mean "daily_limit_reached"/);
    } finally {
        await bridge.close();
    }
    const allowing = await startTestBridge({ allowUnknownPlacements: true });
    try {
        assert.equal((await allowing.superwall.register({ placement: "daily_limit_reachd" })).featureGranted, true);
    } finally {
        await allowing.close();
    }
});

test("an exception in the test's own listener fails the test bridge at close, naming the callback", async () => {
    const bridge = await startTestBridge();
    bridge.superwall.onConfigDidRefresh(() => { throw new TypeError("refresh.paywalls is undefined"); });
    // The refresh itself may be failed with it, when the notification comes before its answer.
    const refreshed = await bridge.superwall.refreshConfiguration().catch((error: unknown) => error);
    assert.ok(!(refreshed instanceof Error) || refreshed instanceof CallbackError, String(refreshed));
    await assert.rejects(bridge.close(), (error: Error) =>
        error instanceof CallbackError && /your callback for config\/didRefresh threw TypeError: refresh\.paywalls is undefined/.test(error.message));
});
