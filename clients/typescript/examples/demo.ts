// The superwall-bridge demo story, driven from TypeScript: `make demo CLIENT=typescript`.
//
// "Pocket Trainer" is a fictional fitness app whose campaigns are built into the bridge. This
// script is the app: it configures, meets a holdout, identifies a runner, sets attributes, meets
// a placement that skips, shows a gated paywall whose promo-code field asks the app through a
// custom callback, buys through its own purchase controller, reads entitlements and customer
// info, restores, and follows deep links out of a paywall and into the summer sale.

import { mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import {
    Superwall, type PaywallPresentation, type PaywallPresenter, type PurchaseController, type SuperwallDelegate,
} from "../src/index";

const say = (text: string): void => { process.stdout.write(`   ${text}\n`); };

class Screen implements PaywallPresenter {
    private readonly waiting: Array<(presentation: PaywallPresentation) => void> = [];
    private readonly shown: PaywallPresentation[] = [];

    present(presentation: PaywallPresentation): void {
        const info = presentation.paywall.info;
        say(`[screen] showing paywall '${info.identifier}' (${info.featureGatingBehavior}), products: ${presentation.paywall.products.map((product) => product.id).join(", ")}`);
        const waiter = this.waiting.shift();
        if (waiter) waiter(presentation);
        else this.shown.push(presentation);
    }

    dismiss(dismissal: { result: { type: string }; closeReason: string }): void {
        say(`[screen] paywall taken down: ${dismissal.result.type} (${dismissal.closeReason})`);
    }

    /** The next paywall shown, within ten seconds. */
    next(): Promise<PaywallPresentation> {
        const ready = this.shown.shift();
        if (ready) return Promise.resolve(ready);
        return new Promise((resolve, reject) => {
            const timer = setTimeout(() => reject(new Error("no paywall was shown within 10 s")), 10_000);
            this.waiting.push((presentation) => { clearTimeout(timer); resolve(presentation); });
        });
    }
}

class Store implements PurchaseController {
    superwall: Superwall | undefined;
    readonly receipts: string[] = [];

    async purchase(product: { id: string; entitlements: Array<{ id: string }>; storeDetails: { localizedPrice?: string | null } | null }) {
        say(`[store] charging ${product.storeDetails?.localizedPrice ?? "?"} for ${product.id}`);
        this.receipts.push(product.id);
        // As SuperwallKit asks of a controller: set the status first, then answer.
        await this.superwall!.setSubscriptionStatus({ type: "active", entitlements: product.entitlements.map((entitlement) => ({ id: entitlement.id })) });
        return { type: "purchased" as const, transaction: { transactionId: `pt-${String(this.receipts.length).padStart(4, "0")}` } };
    }

    restorePurchases() {
        say(`[store] restoring: ${this.receipts.length} receipt(s) on this device`);
        return this.receipts.length ? { type: "restored" as const } : { type: "failed" as const, error: "no purchases to restore" };
    }
}

class Delegate implements SuperwallDelegate {
    private events: string[] = [];
    handleSuperwallEvent(event: { name: string }): void { this.events.push(event.name); }
    paywallWillOpenDeepLink(url: string): void { say(`[delegate] the paywall opens the deep link ${url}`); }
    handleSuperwallDeepLink(url: string, pathComponents: string[]): void {
        say(`[delegate] Superwall link for the app: ${url} (path ${JSON.stringify(pathComponents)})`);
    }
    flush(): void {
        if (this.events.length) say(`events: ${this.events.join(", ")}`);
        this.events = [];
    }
}

async function main(binary: string): Promise<number> {
    const started = Date.now();
    const dataDirectory = mkdtempSync(join(tmpdir(), "superwall-demo-ts-"));
    const screen = new Screen();
    const store = new Store();
    const delegate = new Delegate();
    const chapter = (title: string): void => {
        delegate.flush();
        process.stdout.write(`\n== ${title}\n`);
    };

    chapter("start the bridge and configure it on the embedded demo app");
    const superwall = await Superwall.configure({
        bridgePath: binary, apiKey: "pk_demo_pocket_trainer", paywallPresenter: screen, purchaseController: store, delegate,
        options: { configSource: { type: "embedded" }, dataDirectory },
        device: { platform: "iOS", appVersion: "2.4.0", osVersion: "18.1", deviceModel: "iPhone16,2", locale: "en_US" },
        storeProducts: [
            { productIdentifier: "com.pockettrainer.pro.monthly", price: 9.99, currencyCode: "USD", localizedPrice: "$9.99", period: { unit: "month" } },
            { productIdentifier: "com.pockettrainer.coach.monthly", price: 19.99, currencyCode: "USD", localizedPrice: "$19.99", period: { unit: "month" } },
        ],
    });
    store.superwall = superwall;
    const server = superwall.server;
    say(`bridge ${server.server.version}, following SuperwallKit ${server.sdkVersion}, protocol ${server.protocolVersion}; state kept in ${dataDirectory}`);
    await superwall.setSubscriptionStatus({ type: "inactive" });

    chapter("a holdout: the pro-workouts campaign keeps 20% of users as a control group");
    let heldOut = false;
    for (let attempt = 1; attempt <= 40 && !heldOut; attempt++) {
        await superwall.identify(`visitor_${attempt}`);
        const probe = await superwall.getPresentationResult("start_workout", { workout_tier: "pro" });
        if (probe.type === "holdout") {
            const result = await superwall.register({ placement: "start_workout", params: { workout_tier: "pro" }, feature: () => undefined });
            say(`visitor_${attempt} is in the holdout: register ${result.outcome}, featureGranted ${result.featureGranted}`);
            heldOut = true;
        } else {
            say(`visitor_${attempt} sees the paywall (treatment)`);
        }
    }
    if (!heldOut) say("no visitor landed in the holdout this time (each has a 20% chance)");
    await superwall.reset();

    chapter("identify the runner and set attributes");
    await superwall.identify("runner_042");
    const attributes = await superwall.setUserAttributes({ plan: "free", workouts_completed: 4, email: "runner@example.com" });
    say(`attributes: plan=${attributes.plan}, workouts_completed=${attributes.workouts_completed}`);

    chapter("a placement whose campaign has no audience skips, and the feature runs");
    const skipped = await superwall.register({ placement: "workout_shared", feature: () => say("(the feature runs)") });
    say(`register workout_shared: ${skipped.outcome}, featureGranted ${skipped.featureGranted}`);

    chapter("the daily limit: a gated paywall, a promo code checked by the app, a purchase");
    await superwall.setUserAttributes({ workouts_completed: 5 });
    const registering = superwall.register({
        placement: "daily_limit_reached", feature: () => say("(the feature runs)"),
        handler: {
            onPresent: (info) => say(`[handler] presented ${info.identifier}`),
            onCustomCallback: (callback) => {
                const code = String(callback.variables.code ?? "");
                say(`[handler] the paywall asks ${callback.name} about ${code}`);
                return code === "SUMMER" ? { status: "success", data: { discount: 20 } } : { status: "failure" };
            },
        },
    });
    const shown = await screen.next();
    const answer = await superwall.call("paywall/action", { sessionId: shown.sessionId, action: { type: "requestCallback", name: "validate_promo_code", variables: { code: "SUMMER" } } });
    say(`the paywall hears back: ${JSON.stringify(answer)}`);
    const bought = await superwall.call<{ result: { type: string } }>("paywall/action", { sessionId: shown.sessionId, action: { type: "purchase", productId: "com.pockettrainer.pro.monthly" } });
    say(`purchase from the paywall: ${bought.result.type}`);
    const result = await registering;
    say(`register daily_limit_reached: ${result.outcome} with ${result.paywallResult?.type ?? "-"}, featureGranted ${result.featureGranted}`);

    chapter("entitlements and customer info");
    const entitlements = await superwall.getEntitlements();
    say(`active: ${entitlements.active.map((entitlement) => entitlement.id).join(", ")}; inactive: ${entitlements.inactive.map((entitlement) => entitlement.id).join(", ")}`);
    for (const transaction of (await superwall.getCustomerInfo()).subscriptions) {
        say(`subscription ${transaction.productId}, transaction ${transaction.transactionId}, active ${transaction.isActive}`);
    }

    chapter("a restore through the purchase controller");
    say(`restore: ${(await superwall.restorePurchases()).type}`);

    chapter("deep links: out of a paywall, and into the summer sale");
    const coach = superwall.register({ placement: "open_coach_chat", feature: () => undefined });
    const coachPaywall = await screen.next();
    await superwall.call("paywall/action", { sessionId: coachPaywall.sessionId, action: { type: "openDeepLink", url: "pockettrainer://open?path=promo&offer=summer" } });
    const coachResult = await coach;
    say(`register open_coach_chat: ${coachResult.outcome}, featureGranted ${coachResult.featureGranted} (the coach upsell is gated)`);
    const handled = await superwall.handleDeepLink("pockettrainer://open?path=promo&offer=summer");
    const sale = await screen.next();
    say(`handleDeepLink: handled ${handled}; its deepLink_open campaign shows '${sale.paywall.info.identifier}'`);
    await superwall.call("paywall/action", { sessionId: sale.sessionId, action: { type: "close" } });
    say(`a Superwall universal link: handled ${await superwall.handleDeepLink("https://pockettrainer.superwall.app/app-link/workouts/today")}`);

    chapter("shut down");
    const status = await superwall.close();
    rmSync(dataDirectory, { recursive: true, force: true });
    say(`bridge exited with status ${status} after ${((Date.now() - started) / 1000).toFixed(2)} s`);
    return status === 0 ? 0 : 1;
}

main(process.argv[2] ?? "").then((code) => { process.exitCode = code; }, (error: unknown) => {
    process.stderr.write(`demo failed: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exitCode = 1;
});
