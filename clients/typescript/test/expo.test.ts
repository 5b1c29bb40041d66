// expo-superwall's hooks without React (src/expo.ts), against the real binary.
import { test } from "node:test";
import * as assert from "node:assert/strict";
import { Placement, Superwall, User, subscribeToSuperwallEvents, type PaywallPresenter, type PaywallState } from "../src/index";
import { eventually, scratchDirectory } from "./support";

function embedded(): { configSource: { type: "embedded" }; dataDirectory: string } {
    return { configSource: { type: "embedded" }, dataDirectory: scratchDirectory("superwall-expo-") };
}

test("usePlacement's core: registerPlacement runs the feature and its state says how the placement ended", async () => {
    const presenter: PaywallPresenter = {
        present: (presentation) => { setImmediate(() => void superwall.paywallAction(presentation.sessionId, { type: "close" })); },
        dismiss: () => undefined,
    };
    const superwall = await Superwall.configure({ apiKey: "pk_expo", options: embedded(), paywallPresenter: presenter });
    try {
        const heard: string[] = [];
        const placement = new Placement(superwall, {
            onPresent: (info) => heard.push(`present ${info.identifier}`),
            onDismiss: (_info, result) => heard.push(`dismiss ${result.type}`),
            onSkip: (reason) => heard.push(`skip ${reason.type}`),
        });
        assert.deepEqual(placement.state, { status: "idle" });
        let ran = 0;
        await placement.registerPlacement({ placement: "workout_shared", feature: () => { ran += 1; } });
        assert.equal(placement.state.status, "skipped");
        assert.equal(ran, 1);
        await placement.registerPlacement({ placement: "open_coach_chat", feature: () => { ran += 1; } });
        const state: PaywallState = placement.state;
        assert.equal(state.status, "dismissed");
        assert.deepEqual(heard, ["skip noAudienceMatch", "present coach-upsell-gated", "dismiss declined"]);
        assert.equal(ran, 1, "a declined gated paywall does not run the feature");
    } finally {
        await superwall.close();
    }
});

test("useUser's core: identify, update by a function, signOut, and the status as last read", async () => {
    const superwall = await Superwall.configure({ apiKey: "pk_expo", options: embedded() });
    try {
        const user = new User(superwall);
        await user.refresh();
        assert.equal(user.subscriptionStatus?.type, "inactive");
        await user.identify("expo_user_7");
        await user.update({ workouts: 2 });
        await user.update((old) => ({ workouts: Number(old.workouts) + 1 }));
        assert.equal(user.user?.workouts, 3);
        assert.equal(user.user?.appUserId, "expo_user_7");
        await user.setSubscriptionStatus({ type: "active", entitlements: [{ id: "pro" }] });
        assert.equal(user.subscriptionStatus?.type, "active");
        await user.signOut();
        assert.equal(user.user?.appUserId, undefined);
    } finally {
        await superwall.close();
    }
});

test("useSuperwallEvents' core hears the delegate's notifications beside the app's delegate until unsubscribed", async () => {
    const appHeard: string[] = [];
    const superwall = await Superwall.configure({
        apiKey: "pk_expo", options: embedded(),
        delegate: { handleSuperwallEvent: (event) => { appHeard.push(event.name); } },
    });
    try {
        const events: string[] = [];
        const statuses: string[] = [];
        const unsubscribe = await subscribeToSuperwallEvents(superwall, {
            onSuperwallEvent: ({ event }) => { events.push(event.event ?? event.name); },
            onSubscriptionStatusChange: (status) => { statuses.push(status.type); },
        });
        await superwall.setSubscriptionStatus({ type: "active", entitlements: [{ id: "pro" }] });
        await superwall.setUserAttributes({ plan: "gold" });
        await eventually(() => events.includes("userAttributes") && statuses.includes("active"), "the observer's events");
        assert.ok(events.includes("subscriptionStatusDidChange"), events.join(", "));
        assert.ok(events.includes("userAttributes"), events.join(", "));
        assert.deepEqual(statuses, ["active"]);
        assert.ok(appHeard.includes("user_attributes"), "the app's delegate still hears it");
        await unsubscribe();
        const before = events.length;
        await superwall.setUserAttributes({ plan: "silver" });
        // Observers hear each notification before the app's delegate: once it has, an observer would have.
        await eventually(() => appHeard.filter((name) => name === "user_attributes").length >= 2, "the app's second event");
        assert.equal(events.length, before, "nothing after unsubscribing");
    } finally {
        await superwall.close();
    }
});
