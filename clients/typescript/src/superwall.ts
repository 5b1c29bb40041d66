import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { Connection, DEFAULT_TIMEOUT_MS, ReplyError, type Framing, type WireObserver } from "./connection";
import { BridgeError, UnknownPlacementError } from "./errors";
import type {
    Attributes, ConfigRefresh, ConfigureOptions, ConfigureResult, CustomCallbackResult, CustomerInfo, DeviceOverrides,
    Entitlement, EntitlementsInfo, InitializeResult, PaywallInfo, PaywallPresentation, PaywallResult, PresentationResult,
    Product, PurchaseResult, RegisterResult, SkipReason, StoreDetails, SubscriptionStatusInput, SubscriptionStatus, TrackedEvent,
    PaywallPageLoadResult, PreloadedPaywall, GetConfigurationStatusResult, GetUserIdResult, SetIntegrationAttributesResult,
    GetIntegrationAttributesResult, GetDeviceAttributesResult, SetInterfaceStyleParams, GetProductsResult, GetEventQueueStatusResult, GetPaywallParams, PlacementExplanation, DebugAdvanceClockResult, DebugRecentDecisionsResult, Assignment, DebugOverrideAssignmentResult, FlushEventsResult, GetAssignmentsResult, ConfirmAllAssignmentsResult, TestModePurchaseResult, PaywallPresentSurveyParams, SurveyAnswer, ErrorObject, DelegateHandleSuperwallEventParams, DelegateTestModeTransactionParams, DelegateDidRedeemLinkParams,
    ObservePurchaseStartParams, ObservePurchaseResultParams, ObservePurchaseErrorParams,
} from "./generated/protocol";

/** This package's version (the bridge's and both clients': one version, in the repository's VERSION). */
export const CLIENT_VERSION = "0.1.0";

/** The protocol version this client speaks. */
export const PROTOCOL_VERSION = "1.0";
/** Calls that wait on a person (a purchase, a paywall on screen) get this long by default. */
export const INTERACTIVE_TIMEOUT_MS = 15 * 60_000;

/** What a register's paywall tells the app (expo-superwall's `PaywallPresentationHandler`). */
export interface PaywallPresentationHandler {
    onPresent?(info: PaywallInfo): void | Promise<void>;
    onWillDismiss?(info: PaywallInfo, result: PaywallResult): void | Promise<void>;
    onDismiss?(info: PaywallInfo, result: PaywallResult): void | Promise<void>;
    onSkip?(reason: SkipReason): void | Promise<void>;
    onError?(error: ErrorObject): void | Promise<void>;
    /** A paywall's custom callback; without this method the paywall hears `failure`. */
    onCustomCallback?(callback: { name: string; variables: Attributes; behavior: string }): CustomCallbackResult | Promise<CustomCallbackResult>;
}

/** The app's own purchases (SuperwallKit's `PurchaseController`). Set the subscription status
 * (`superwall.setSubscriptionStatus`) before answering `purchased` or `restored`. */
export interface PurchaseController {
    purchase(product: Product, paywallInfo: PaywallInfo | null): PurchaseAnswer | Promise<PurchaseAnswer>;
    restorePurchases(): RestoreAnswer | Promise<RestoreAnswer>;
}
export type PurchaseAnswer =
    | { type: "purchased"; transaction?: { transactionId?: string; purchaseDate?: string | number; expirationDate?: string | number; willRenew?: boolean; offerType?: string; store?: string } }
    | { type: "cancelled" } | { type: "pending" } | { type: "restored" } | { type: "failed"; error: string };
export type RestoreAnswer = { type: "restored" } | { type: "failed"; error?: string };

/** Everything the bridge tells a delegate (SuperwallKit's `SuperwallDelegate`); implement what you need. */
export interface SuperwallDelegate {
    /** An event the SDK tracked, and its params as SuperwallKit hands them to a delegate. */
    handleSuperwallEvent?(event: TrackedEvent, params: Record<string, unknown>): void | Promise<void>;
    subscriptionStatusDidChange?(from: SubscriptionStatus, to: SubscriptionStatus): void | Promise<void>;
    customerInfoDidChange?(from: CustomerInfo, to: CustomerInfo): void | Promise<void>;
    willPresentPaywall?(info: PaywallInfo): void | Promise<void>;
    didPresentPaywall?(info: PaywallInfo): void | Promise<void>;
    willDismissPaywall?(info: PaywallInfo): void | Promise<void>;
    didDismissPaywall?(info: PaywallInfo): void | Promise<void>;
    handleCustomPaywallAction?(name: string): void | Promise<void>;
    paywallWillOpenURL?(url: string): void | Promise<void>;
    paywallWillOpenDeepLink?(url: string): void | Promise<void>;
    userAttributesDidChange?(attributes: Attributes): void | Promise<void>;
    handleSuperwallDeepLink?(url: string, pathComponents: string[], queryParameters: Attributes): void | Promise<void>;
    /** SuperwallKit's `handleLog(level, scope, message, info, error)`: `info` the line's
     * metadata, `error` the error it reports (null when it reports none). */
    handleLog?(level: string, scope: string, message: string | null, info: Record<string, string> | null, error: string | null): void | Promise<void>;
    /** Test mode (no purchase controller) simulated a purchase or a restore. */
    testModeTransaction?(type: "purchase" | "restore", product: Product | null): void | Promise<void>;
    willRedeemLink?(): void | Promise<void>;
    didRedeemLink?(result: DelegateDidRedeemLinkParams["result"]): void | Promise<void>;
}

/** Shows paywalls. A host that renders the paywall's page implements the page methods too: it
 * evaluates each `accept64` into the page (`window.paywall.accept64(...)`), forwards what the
 * page posts with `superwall.pageMessage`, and its load with `superwall.pageLoad`. An effect
 * method that is missing answers `methodNotFound`, and the bridge applies its default. */
export interface PaywallPresenter {
    present(presentation: PaywallPresentation): void | Promise<void>;
    /** Takes the paywall down. A presenter that renders the page returns what its
     * `window.app.getAllState()` answers: it becomes `PaywallInfo.state` (SuperwallKit's). */
    dismiss(dismissal: { sessionId: string; result: PaywallResult; closeReason: string; paywallInfo: PaywallInfo }):
        void | Record<string, unknown> | Promise<void | Record<string, unknown>>;
    pageEvent?(sessionId: string, accept64: string): void | Promise<void>;
    showAlert?(alert: { sessionId: string; title: string; message: string; actionTitle: string | null; actionUrl: string | null; closeActionTitle: string }): void | Promise<void>;
    openUrl?(sessionId: string, url: string, mode: "inApp" | "external" | "paymentSheet" | "deepLink"): void | Promise<void>;
    requestReview?(sessionId: string, type: "inApp" | "external", url: string | null): void | Promise<void>;
    requestPermission?(sessionId: string, permission: string): "granted" | "denied" | "unsupported" | Promise<"granted" | "denied" | "unsupported">;
    /** Schedules the page's trial reminder; answer `"denied"` when the OS refused to notify, and
     * configure's `paywalls.notificationPermissionsDenied` alert is shown. */
    scheduleNotification?(sessionId: string, notification: { id: string; title: string; subtitle: string | null; body: string; delayMs: number }): void | "granted" | "denied" | Promise<void | "granted" | "denied">;
    haptic?(sessionId: string, type: string): void | Promise<void>;
    loadingState?(sessionId: string, state: string): void | Promise<void>;
    /** Shows a paywall's survey as it closes and answers what the user chose
     * (`paywall/presentSurvey`); without it the paywall closes without its survey. */
    presentSurvey?(request: PaywallPresentSurveyParams): SurveyAnswer | Promise<SurveyAnswer>;
    /** Loads a paywall's page into a web view kept for when it shows (`paywall/preload`);
     * defining it declares the `paywallPreloader` capability. */
    preload?(paywall: PreloadedPaywall): void | Promise<void>;
}

/** Test mode's choices, as SuperwallKit's test-mode drawers: how each simulated purchase ends,
 * and which entitlements a simulated restore finds (`null` cancels it). Giving one declares
 * the `testModeUI` capability; without one, test mode's purchases go through and its restores
 * find what it bought. */
export interface TestModeUI {
    choosePurchaseOutcome(product: Product): TestModePurchaseResult["outcome"] | Promise<TestModePurchaseResult["outcome"]>;
    chooseRestoredEntitlements(available: string[]): string[] | null | Promise<string[] | null>;
}

export interface LaunchOptions {
    /** The bridge binary; default `SUPERWALL_BRIDGE`, then `superwall-bridge` on the PATH. */
    bridgePath?: string;
    purchaseController?: PurchaseController;
    paywallPresenter?: PaywallPresenter;
    testModeUI?: TestModeUI;
    delegate?: SuperwallDelegate;
    framing?: Framing;
    args?: readonly string[];
    /** Each call's default timeout. */
    timeoutMs?: number;
    /** The default timeout of calls that end when the user is done (`register`, purchases,
     * `paywallAction`): 15 minutes. */
    interactiveTimeoutMs?: number;
    /** `"fail"`: `register`, `getPresentationResult` and `getPaywall` reject with
     * `UnknownPlacementError` for a placement the config does not know, naming the nearest
     * one, instead of answering SuperwallKit's skip (which grants the feature). The test
     * bridge sets it. */
    unknownPlacements?: "allow" | "fail";
    observer?: WireObserver;
}

export interface ConfigureArguments extends LaunchOptions {
    apiKey: string;
    options?: ConfigureOptions;
    device?: DeviceOverrides;
    storeProducts?: StoreDetails[];
}

export interface RegisterArguments {
    placement: string;
    params?: Attributes;
    handler?: PaywallPresentationHandler;
    /** Runs when the bridge decides the feature may run (a skip, a purchase, a declined non-gated paywall). */
    feature?: () => void | Promise<void>;
    timeoutMs?: number;
    /** Answer the decision record as the result's `decision`: every gate the presentation ran,
     * what it read and how long it waited (`formatDecision` prints it). Absent, it follows
     * `configure`'s `options.recordDecisions`. */
    explain?: boolean;
}

export interface GetPaywallArguments {
    placement: string;
    params?: Attributes;
    /** SuperwallKit's `PaywallOverrides`: products by name, and a presentation style. */
    overrides?: GetPaywallParams["overrides"];
    /** Hears the paywall's life until it is dismissed. */
    handler?: PaywallPresentationHandler;
    /** As `register`'s; a skip's or a failure's record is the error's `decision`. */
    explain?: boolean;
}

type Listener = (refresh: ConfigRefresh) => void;

/** The binary the npm package ships beside this client (`bin/superwall-bridge`), if this
 * install has one. */
export function bundledBridge(): string | undefined {
    const candidate = join(__dirname, "..", "..", "bin", "superwall-bridge");
    return existsSync(candidate) ? candidate : undefined;
}

/** The in-process library the npm package ships (`lib/libsuperwall_bridge.so`, behind the C
 * interface of docs/embedding.md), for a host that loads it through an FFI, if this install
 * has one. */
export function bundledLibrary(): string | undefined {
    const candidate = join(__dirname, "..", "..", "lib", "libsuperwall_bridge.so");
    return existsSync(candidate) ? candidate : undefined;
}

/** The debug build of the bridge's own checkout, when this client is compiled inside it
 * (`<checkout>/clients/typescript/dist/src`), for development; never a folder found from the
 * working directory, where a planted `.build` would run as the bridge. */
function checkoutBuild(): string | undefined {
    const checkout = resolve(__dirname, "..", "..", "..", "..");
    if (resolve(checkout, "clients", "typescript", "dist", "src") !== resolve(__dirname)) return undefined;
    if (!existsSync(join(checkout, "Package.swift"))) return undefined;
    const candidate = join(checkout, ".build", "debug", "superwall-bridge");
    return existsSync(candidate) ? candidate : undefined;
}

/** The bridge binary: `path`, else `SUPERWALL_BRIDGE`, else the one bundled in the npm
 * package, else `superwall-bridge` on the PATH, else (for a client compiled in the bridge's
 * own checkout) that checkout's debug build. The working directory is never searched. */
export function findBridge(path?: string): string {
    if (path) return path;
    const fromEnvironment = process.env.SUPERWALL_BRIDGE;
    if (fromEnvironment) return fromEnvironment;
    const bundled = bundledBridge();
    if (bundled) return bundled;
    try {
        const found = execFileSync("sh", ["-c", "command -v superwall-bridge"], { encoding: "utf8" }).trim();
        if (found) return found;
    } catch {
        // not on the PATH
    }
    const checkout = checkoutBuild();
    if (checkout) return checkout;
    throw new Error("superwall-bridge was not found: install the npm package that bundles it (npm install superwall-bridge-<version>.tgz), set SUPERWALL_BRIDGE, pass bridgePath, or build it with `swift build` in the bridge's checkout");
}

/** The Superwall SDK, through a superwall-bridge process. */
export class Superwall {
    /** The instance `Superwall.configure` made, as expo-superwall's `Superwall.shared`. */
    static shared: Superwall | undefined;

    readonly connection: Connection;
    readonly server: InitializeResult;
    private readonly handlers = new Map<string, PaywallPresentationHandler>();
    private readonly listeners = new Set<Listener>();
    private nextRegister = 0;

    /** Paywalls on screen, by session id: what `paywall/present` showed and `paywall/dismiss`
     * did not take down yet. */
    private readonly onScreen = new Map<string, string>();
    /** The bridge's requests this client is answering, with when each came. */
    private readonly answering = new Map<number, { what: string; since: number }>();
    private nextAnswer = 0;

    /** The delegate the bridge's `delegate/*` notifications go to; `setDelegate` replaces it. */
    private delegate: SuperwallDelegate | undefined;
    /** Who else hears them (`observeDelegate`: expo-superwall's `useSuperwallEvents`), before the delegate. */
    private readonly observers = new Set<SuperwallDelegate>();

    private constructor(connection: Connection, server: InitializeResult, private readonly options: LaunchOptions) {
        this.connection = connection;
        this.server = server;
        this.delegate = options.delegate;
        connection.waitingOn = () => this.waitingOn();
    }

    /** What is open now: each paywall on screen, and each of the bridge's requests this client
     * has not answered yet (what a call that times out was most likely waiting for). */
    waitingOn(): string[] {
        const now = Date.now();
        return [
            ...[...this.onScreen].map(([sessionId, identifier]) => `paywall "${identifier}" (session ${sessionId}) is still on screen`),
            ...[...this.answering.values()].map(({ what, since }) =>
                `this client has not answered the bridge's ${what} for ${((now - since) / 1000).toFixed(1)} s`),
        ];
    }

    private interactiveTimeout(): number {
        return this.options.interactiveTimeoutMs ?? INTERACTIVE_TIMEOUT_MS;
    }

    /** Starts the bridge, configures it, and makes `Superwall.shared`. */
    static async configure(args: ConfigureArguments): Promise<Superwall> {
        const superwall = await Superwall.launch(args);
        try {
            const result = await superwall.call<ConfigureResult>("configure", {
                apiKey: args.apiKey, ...(args.options ? { options: args.options } : {}), ...(args.device ? { device: args.device } : {}),
                ...(args.storeProducts ? { storeProducts: args.storeProducts } : {}),
            });
            if (result.configurationStatus === "failed") {
                throw new BridgeError(result.error?.code ?? -32603, result.error?.message ?? "configure failed", result.error?.data);
            }
        } catch (error) {
            await superwall.close();
            throw error;
        }
        Superwall.shared = superwall;
        return superwall;
    }

    /** Starts the bridge and initializes the session without configuring it. */
    static async launch(options: LaunchOptions = {}): Promise<Superwall> {
        const holder: { superwall?: Superwall } = {};
        const connection = Connection.spawn(findBridge(options.bridgePath), {
            args: options.args, framing: options.framing, observer: options.observer,
            onRequest: (method, params) => Superwall.answer(holder.superwall, method, params),
            onNotification: (method, params) => holder.superwall?.hear(method, params),
        });
        let server: InitializeResult;
        try {
            server = await connection.request<InitializeResult>("initialize", {
                protocolVersion: PROTOCOL_VERSION, client: { name: "superwall-bridge-typescript", version: CLIENT_VERSION },
                capabilities: {
                    purchaseController: options.purchaseController !== undefined, paywallPresenter: options.paywallPresenter !== undefined,
                    customCallbacks: true, delegate: options.delegate !== undefined,
                    paywallPreloader: typeof options.paywallPresenter?.preload === "function",
                    testModeUI: options.testModeUI !== undefined,
                },
            }, options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
        } catch (error) {
            await connection.close(1000);
            throw error;
        }
        const bridgeVersion = typeof server.protocolVersion === "string" ? server.protocolVersion : "";
        if (bridgeVersion.split(".")[0] !== PROTOCOL_VERSION.split(".")[0]) {
            await connection.close(1000);
            throw new BridgeError(-32602,
                `this client speaks protocol ${PROTOCOL_VERSION} and the bridge answered initialize with protocol ${bridgeVersion || "(none)"}: install a client and a bridge of the same major version`,
                { kind: "unsupportedProtocolVersion", client: PROTOCOL_VERSION, bridge: bridgeVersion });
        }
        holder.superwall = new Superwall(connection, server, options);
        return holder.superwall;
    }

    /** Any method of the protocol, with this client's default timeout. */
    call<Result = unknown>(method: string, params?: unknown, timeoutMs?: number): Promise<Result> {
        return this.connection.request<Result>(method, params, timeoutMs ?? this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    }

    // MARK: Users

    async identify(userId: string, options?: { restorePaywallAssignments?: boolean }): Promise<void> {
        await this.call("identify", { userId, ...(options ? { options } : {}) });
    }

    async reset(): Promise<void> {
        await this.call("reset");
    }

    async setUserAttributes(attributes: Attributes): Promise<Attributes> {
        return (await this.call<{ attributes: Attributes }>("setUserAttributes", { attributes })).attributes;
    }

    async getUserAttributes(): Promise<Attributes> {
        return (await this.call<{ attributes: Attributes }>("getUserAttributes")).attributes;
    }

    // MARK: Placements

    /** Registers a placement; settles when the presentation ends (skipped, dismissed, failed),
     * after the handler has heard everything and `feature` ran if the feature was granted. */
    async register(args: RegisterArguments): Promise<RegisterResult> {
        const id = `register-${++this.nextRegister}`;
        this.handlers.set(id, args.handler ?? {});
        try {
            const result = await this.connection.request<RegisterResult>(
                "register",
                {
                    placement: args.placement, params: args.params ?? {}, hasFeature: args.feature !== undefined,
                    ...(args.explain === undefined ? {} : { explain: args.explain }),
                },
                args.timeoutMs ?? this.interactiveTimeout(), id);
            if (result.skipReason?.type === "placementNotFound") await this.checkKnown(args.placement);
            if (result.featureGranted && args.feature) await args.feature();
            return result;
        } finally {
            this.handlers.delete(id);
        }
    }

    /** SuperwallKit's `getPaywall`: the paywall for the app to show itself, driven with
     * `paywallAction` and the page methods. Rejects with `paywallSkipped` when there is none. */
    async getPaywall(args: GetPaywallArguments): Promise<PaywallPresentation> {
        const id = `getPaywall-${++this.nextRegister}`;
        this.handlers.set(id, args.handler ?? {});
        try {
            return await this.connection.request<PaywallPresentation>(
                "getPaywall",
                {
                    placement: args.placement, params: args.params ?? {}, ...(args.overrides ? { overrides: args.overrides } : {}),
                    ...(args.explain === undefined ? {} : { explain: args.explain }),
                },
                this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS, id);
        } catch (error) {
            this.handlers.delete(id);
            const skip = error instanceof BridgeError ? (error.data?.skipReason as { type?: string } | undefined) : undefined;
            if (skip?.type === "placementNotFound") await this.checkKnown(args.placement);
            throw error;
        }
    }

    /** SuperwallKit's `getPresentationResult`; `explain` as `register`'s. */
    async getPresentationResult(placement: string, params?: Attributes, options: { explain?: boolean } = {}): Promise<PresentationResult> {
        const result = await this.call<PresentationResult>("getPresentationResult", {
            placement, ...(params ? { params } : {}), ...(options.explain === undefined ? {} : { explain: options.explain }),
        });
        if (result.type === "placementNotFound") await this.checkKnown(placement);
        return result;
    }

    /** Rejects for a placement the config does not know, when told to (`unknownPlacements`). */
    private async checkKnown(placement: string): Promise<void> {
        if (this.options.unknownPlacements !== "fail") return;
        const explanation = await this.explainPlacement(placement);
        throw new UnknownPlacementError(placement, explanation.nearestPlacement);
    }

    /** The app came to the foreground (UIKit's `applicationDidBecomeActive`): `app_open`, and a
     * new session when it was away longer than the config's session timeout. */
    appDidBecomeActive(): void {
        this.connection.notify("app/didBecomeActive");
    }

    /** The app went to the background (UIKit's `applicationWillResignActive`): `app_close`. */
    appWillResignActive(): void {
        this.connection.notify("app/willResignActive");
    }

    async dismiss(): Promise<void> {
        await this.call("dismiss");
    }

    /** Superwall-Android's `dismissForNextPaywall()`: closes the paywall on screen for another
     * (its feature is not granted; a waiting `register` resolves all the same). */
    async dismissForNextPaywall(): Promise<void> {
        await this.call("dismiss", { forNextPaywall: true });
    }

    /** Superwall-Android's `openRestoreOnWeb()`: the config's web restore page, for the app to
     * open in a browser; null when the config has none. */
    async openRestoreOnWeb(): Promise<string | null> {
        return (await this.call<{ url: string | null }>("openRestoreOnWeb")).url;
    }

    /** SuperwallKit's `togglePaywallSpinner(isHidden:)`: shows the paywall's spinner over a ready
     * page, or hides the spinner of a manual load or a purchase (for a custom action doing async
     * work). Answers the loading state the presenter was asked to show; null with no paywall up. */
    async togglePaywallSpinner(isHidden: boolean): Promise<string | null> {
        return (await this.call<{ paywallPresented: boolean; loadingState: string | null }>("togglePaywallSpinner", { isHidden })).loadingState;
    }

    /** SuperwallKit's `isPaywallPresented`. */
    async isPaywallPresented(): Promise<boolean> {
        return (await this.call<{ isPaywallPresented: boolean }>("isPaywallPresented")).isPaywallPresented;
    }

    /** SuperwallKit's `latestPaywallInfo`: the paywall on screen's info, else the last dismissed
     * one's; null before any. */
    async latestPaywallInfo(): Promise<PaywallInfo | null> {
        return (await this.call<{ paywallInfo: PaywallInfo | null }>("latestPaywallInfo")).paywallInfo;
    }

    /** Forwards what the user did on a paywall (`paywall/action`): `{type: "close"}`,
     * `{type: "purchase", productId}`, `{type: "restore"}`, `{type: "custom", name}`, ... Answers
     * `{}`, or for a purchase `{result}`, for a restore `{result, paywallClosed, paywallKept}`,
     * for a callback `{status, data}`. */
    paywallAction(sessionId: string, action: { type: string } & Record<string, unknown>): Promise<Record<string, unknown>> {
        return this.call("paywall/action", { sessionId, action }, this.interactiveTimeout());
    }

    /** Forwards what a paywall's page posted; answers how many events ran. */
    async pageMessage(sessionId: string, message: string | object): Promise<number> {
        return (await this.call<{ events: number }>("paywall/pageMessage", { sessionId, message }, this.interactiveTimeout())).events;
    }

    /** Reports a load of a paywall's page; answers what to do next. */
    pageLoad(sessionId: string, outcome: "finished" | "failed" | "processTerminated" | "exit",
             details: { httpStatus?: number; reason?: string } = {}): Promise<PaywallPageLoadResult> {
        return this.call("paywall/pageLoad", { sessionId, outcome, ...details });
    }

    // MARK: Preloading

    /** SuperwallKit's `preloadAllPaywalls`: loads the paywalls the user could be shown (a
     * presenter with `preload` is asked to warm them); answers their identifiers. */
    async preloadAllPaywalls(): Promise<string[]> {
        return (await this.call<{ paywalls: string[] }>("preloadAllPaywalls", {}, this.interactiveTimeout())).paywalls;
    }

    /** SuperwallKit's `preloadPaywalls(forPlacements:)`: only those placements' paywalls. */
    async preloadPaywalls(placements: string[]): Promise<string[]> {
        return (await this.call<{ paywalls: string[] }>("preloadPaywalls", { placements }, this.interactiveTimeout())).paywalls;
    }

    // MARK: Subscription, entitlements, purchases

    async setSubscriptionStatus(status: SubscriptionStatusInput): Promise<SubscriptionStatus> {
        return (await this.call<{ status: SubscriptionStatus }>("setSubscriptionStatus", { status })).status;
    }

    async getSubscriptionStatus(): Promise<SubscriptionStatus> {
        return (await this.call<{ status: SubscriptionStatus }>("getSubscriptionStatus")).status;
    }

    getEntitlements(): Promise<EntitlementsInfo> {
        return this.call("getEntitlements");
    }

    getEntitlementsByProductIds(productIds: string[]): Promise<{ entitlements: Entitlement[] }> {
        return this.call("getEntitlementsByProductIds", { productIds });
    }

    getCustomerInfo(): Promise<CustomerInfo> {
        return this.call("getCustomerInfo");
    }

    async purchase(productId: string): Promise<PurchaseResult> {
        return (await this.call<{ result: PurchaseResult }>("purchase", { productId }, this.interactiveTimeout())).result;
    }

    async restorePurchases(): Promise<PurchaseResult> {
        return (await this.call<{ result: PurchaseResult }>("restorePurchases", undefined, this.interactiveTimeout())).result;
    }

    // MARK: Observer mode (configure's options.shouldObservePurchases)

    /** Superwall-Android's `observePurchaseStart`: your app started buying `productId` through
     * its own store. Tracks `transaction_start`. */
    async observePurchaseStart(productId: string): Promise<void> {
        const params: ObservePurchaseStartParams = { productId };
        await this.call("observePurchaseStart", params);
    }

    /** Superwall-Android's `observePurchaseResult`: how your app's own purchase ended (that of
     * `productId`, else the latest started), as a purchase controller answers one. `purchased`
     * (with its `transaction`) records it in the customer info and tracks `transaction_complete`. */
    async observePurchaseResult(result: ObservePurchaseResultParams["result"], productId?: string): Promise<void> {
        const params: ObservePurchaseResultParams = productId === undefined ? { result } : { result, productId };
        await this.call("observePurchaseResult", params);
    }

    /** Superwall-Android's `observePurchaseError`: your app's own purchase failed;
     * `transaction_fail` with `error` as its message. */
    async observePurchaseError(productId: string, error: string): Promise<void> {
        const params: ObservePurchaseErrorParams = { productId, error };
        await this.call("observePurchaseError", params);
    }

    // MARK: Links, configuration, device

    /** SuperwallKit's `handleDeepLink`: whether Superwall handled the link. It resolves before
     * the paywall the link presents is up: `awaitPresentations()` waits for that. */
    async handleDeepLink(url: string): Promise<boolean> {
        return (await this.call<{ handled: boolean }>("handleDeepLink", { url })).handled;
    }

    /** `awaitPresentations`: resolves once every presentation asked for before it has run
     * (shown, skipped or failed), a paywall no `register` waits on included (a deep link's,
     * `app_launch`'s, a page's custom placement), with the paywall on screen then. */
    async awaitPresentations(timeoutMs?: number): Promise<{ sessionId: string; paywallInfo: PaywallInfo } | null> {
        const answer = await this.call<{ onScreen: { sessionId: string; paywallInfo: PaywallInfo } | null }>(
            "awaitPresentations", undefined, timeoutMs ?? this.interactiveTimeout());
        return answer.onScreen;
    }

    refreshConfiguration(): Promise<ConfigRefresh> {
        return this.call("refreshConfiguration", undefined, 120_000);
    }

    /** Hears every `config/didRefresh` (a refresh, or a watched config file that changed).
     * Answers the function that stops it. */
    onConfigDidRefresh(listener: Listener): () => void {
        this.listeners.add(listener);
        return () => this.listeners.delete(listener);
    }

    async setLocaleIdentifier(localeIdentifier: string | null): Promise<void> {
        await this.call("setLocaleIdentifier", { localeIdentifier });
    }

    /** SuperwallKit's `localeIdentifier` getter: the override in effect; null is the device's. */
    async getLocaleIdentifier(): Promise<string | null> {
        return (await this.call<{ localeIdentifier: string | null }>("getLocaleIdentifier")).localeIdentifier;
    }

    /** SuperwallKit's options as they are now (`config_attributes`' form and names):
     * `configure`'s, with what was changed since. */
    async getOptions(): Promise<Record<string, unknown>> {
        return (await this.call<{ options: Record<string, unknown> }>("getOptions")).options;
    }

    /** Which events go out from now on, as SuperwallKit's `eventTrackingBehavior` setter (a
     * consent flow): anything but `"all"` also drops what waits to be sent. */
    async setEventTrackingBehavior(behavior: "all" | "superwallOnly" | "none"): Promise<void> {
        await this.call("setEventTrackingBehavior", { behavior });
    }

    async setLogLevel(level: string): Promise<void> {
        await this.call("setLogLevel", { level });
    }

    /** The log level in effect, by SuperwallKit's name (`debug`, `info`, `warn`, `error`, `none`). */
    async getLogLevel(): Promise<string> {
        return (await this.call<{ level: string }>("getLogLevel")).level;
    }

    /** `setDelegate`: replaces the delegate (or, with `undefined`, stops the notifications: the
     * bridge then buffers them, at most 1,000, until a delegate is set again). */
    async setDelegate(delegate: SuperwallDelegate | undefined): Promise<void> {
        this.delegate = delegate;
        await this.call("setDelegate", { enabled: delegate !== undefined || this.observers.size > 0 });
    }

    /** Hears every delegate notification beside the delegate, as expo-superwall's event
     * subscriptions do (`subscribeToSuperwallEvents`), until the returned function is called.
     * The first observer turns the bridge's notifications on: events it kept until then come. */
    async observeDelegate(observer: SuperwallDelegate): Promise<() => Promise<void>> {
        this.observers.add(observer);
        if (this.observers.size === 1 && this.delegate === undefined) await this.call("setDelegate", { enabled: true });
        return async () => {
            if (!this.observers.delete(observer)) return;
            if (this.observers.size === 0 && this.delegate === undefined) await this.call("setDelegate", { enabled: false });
        };
    }

    /** SuperwallKit's `configurationStatus`. */
    async getConfigurationStatus(): Promise<GetConfigurationStatusResult["status"]> {
        return (await this.call<GetConfigurationStatusResult>("getConfigurationStatus")).status;
    }

    /** The user's ids: `userId`, `aliasId`, `appUserId` (null while anonymous), `isLoggedIn`, `seed`. */
    getUserId(): Promise<GetUserIdResult> {
        return this.call("getUserId");
    }

    /** SuperwallKit's integration attributes (`adjustId`, `mixpanelDistinctId`, ...); a null removes one. */
    async setIntegrationAttributes(attributes: Attributes): Promise<Attributes> {
        return (await this.call<SetIntegrationAttributesResult>("setIntegrationAttributes", { attributes })).attributes;
    }

    async getIntegrationAttributes(): Promise<Attributes> {
        return (await this.call<GetIntegrationAttributesResult>("getIntegrationAttributes")).attributes;
    }

    /** SuperwallKit's device template, as rules and the page see it. */
    async getDeviceAttributes(): Promise<Attributes> {
        return (await this.call<GetDeviceAttributesResult>("getDeviceAttributes")).attributes;
    }

    /** expo-superwall's `getStoreFrontCountryCode`: the storefront country the client gave in
     * `configure`'s `device.storeFrontCountryCode`, or null. */
    async getStoreFrontCountryCode(): Promise<string | null> {
        const code = (await this.getDeviceAttributes()).storeFrontCountryCode;
        return typeof code === "string" && code !== "" ? code : null;
    }

    /** SuperwallKit's `setInterfaceStyle`: `null` goes back to the device's. */
    async setInterfaceStyle(style: SetInterfaceStyleParams["style"]): Promise<void> {
        await this.call("setInterfaceStyle", { style });
    }

    /** SuperwallKit's `setPlatformWrapper`: the wrapper SDK says who it is (`"Expo"`, `"1.2.0"`). */
    async setPlatformWrapper(platformWrapper: string, version: string): Promise<void> {
        await this.call("setPlatformWrapper", { platformWrapper, version });
    }

    /** The config's products with what the store said of them; only those named, when given. */
    async getProducts(productIds?: string[]): Promise<Product[]> {
        return (await this.call<GetProductsResult>("getProducts", productIds === undefined ? {} : { productIds })).products;
    }

    /** What the client's store says of products (price, period, trial). */
    async setStoreProducts(products: StoreDetails[]): Promise<void> {
        await this.call("setStoreProducts", { products });
    }

    /** SuperwallKit's `overrideProductsByName`, after `configure`: a paywall product's name
     * (`"primary"`) to the product shown and sold in its place, from the next presentation on. */
    async setOverrideProductsByName(productsByName: Record<string, string>): Promise<void> {
        await this.call("setOverrideProductsByName", { productsByName });
    }

    /** The `overrideProductsByName` in effect: `configure`'s, or the last set. */
    async getOverrideProductsByName(): Promise<Record<string, string>> {
        return (await this.call<{ productsByName: Record<string, string> }>("getOverrideProductsByName")).productsByName;
    }

    /** The outgoing queue: how many events wait to be sent, how many were dropped unsent. */
    getEventQueueStatus(): Promise<GetEventQueueStatusResult> {
        return this.call("getEventQueueStatus");
    }

    // MARK: Tools for editors and tests

    /** What `register` would do for the placement now, and why, with no side effect: every
     * audience's rule with the value each part of it took, the occurrence count, the variant,
     * the paywall and the outcome. `user` overlays the user's attributes for this call only. */
    explainPlacement(placement: string, options: { params?: Attributes; user?: Attributes } = {}): Promise<PlacementExplanation> {
        return this.call("debug/explainPlacement", { placement, ...options });
    }

    /** The decision records kept last (at most 50), oldest first. With `configure`'s
     * `options.recordDecisions` (or the log at debug) every presentation's is kept and
     * `recordsEveryDecision` is true; otherwise only those of the calls that asked (`explain`). */
    recentDecisions(limit?: number): Promise<DebugRecentDecisionsResult> {
        return this.call("debug/recentDecisions", limit === undefined ? {} : { limit });
    }

    /** Moves the bridge's clock on by `seconds`: only after `configure` with `options.clock:
     * "manual"`; otherwise rejects with kind `clockNotManual`. */
    advanceClock(seconds: number): Promise<DebugAdvanceClockResult> {
        return this.call("debug/advanceClock", { seconds });
    }

    /** The user's variant of each experiment, with whether the server has been told. */
    async getAssignments(): Promise<Assignment[]> {
        return (await this.call<GetAssignmentsResult>("getAssignments", {})).assignments;
    }

    /** SuperwallKit's `confirmAllAssignments()`: evaluates every placement and confirms each
     * assignment an audience matched; resolves to the user's assignments. */
    async confirmAllAssignments(): Promise<Assignment[]> {
        return (await this.call<ConfirmAllAssignmentsResult>("confirmAllAssignments", {})).assignments;
    }

    /** Gives the user that variant of the experiment, as a server assignment would (confirmed,
     * kept while the config has it): for tests of one branch. An experiment or variant the
     * config lacks rejects with kind `invalidParams` and `data.path` naming it. */
    async overrideAssignment(experimentId: string, variantId: string): Promise<Assignment> {
        return (await this.call<DebugOverrideAssignmentResult>("debug/overrideAssignment", { experimentId, variantId })).assignment;
    }

    /** Sends the queued events now (to the collector, or the data directory's `events.jsonl`)
     * rather than at the next flush interval; resolves to how many went out. */
    async flushEvents(): Promise<number> {
        return (await this.call<FlushEventsResult>("flushEvents", {})).flushed;
    }

    /** Ends the session: `shutdown`, `exit`, and the bridge's exit code. */
    async close(timeoutMs = 5000): Promise<number | null> {
        if (!this.connection.isClosed) {
            try {
                await this.connection.request("shutdown", undefined, timeoutMs);
                this.connection.notify("exit");
            } catch {
                // Already gone, or not answering: closing its input ends it either way.
            }
        }
        if (Superwall.shared === this) Superwall.shared = undefined;
        return this.connection.close(timeoutMs);
    }

    // MARK: The bridge's requests and notifications

    private static async answer(superwall: Superwall | undefined, method: string, params: unknown): Promise<unknown> {
        if (!superwall) throw new ReplyError(-32601, `not ready for ${method}`, { kind: "methodNotFound" });
        return superwall.answer(method, (params ?? {}) as Record<string, any>);
    }

    private async answer(method: string, params: Record<string, any>): Promise<unknown> {
        if (method === "paywall/present") this.onScreen.set(String(params.sessionId), String(params.paywall?.info?.identifier ?? "?"));
        if (method === "paywall/dismiss") this.onScreen.delete(String(params.sessionId));
        const id = ++this.nextAnswer;
        const product = params.product?.productIdentifier;
        this.answering.set(id, { what: product ? `${method} (${product})` : method, since: Date.now() });
        try {
            return await this.perform(method, params);
        } finally {
            this.answering.delete(id);
        }
    }

    private async perform(method: string, params: Record<string, any>): Promise<unknown> {
        const { purchaseController: controller, paywallPresenter: presenter } = this.options;
        switch (method) {
            case "purchaseController/purchase":
                return required(controller, method).purchase(params.product, params.paywallInfo ?? null);
            case "purchaseController/restorePurchases":
                return required(controller, method).restorePurchases();
            case "testMode/purchase":
                return { outcome: await required(this.options.testModeUI, method).choosePurchaseOutcome(params.product) };
            case "testMode/restore":
                return { entitlements: await required(this.options.testModeUI, method).chooseRestoredEntitlements(params.availableEntitlements ?? []) };
            case "paywall/present":
                await required(presenter, method).present(params as PaywallPresentation);
                return {};
            case "paywall/dismiss": {
                const state = await required(presenter, method).dismiss(params as any);
                return state && typeof state === "object" ? { state } : {};
            }
            case "handler/onCustomCallback": {
                const handler = this.handlers.get(String(params.registerId));
                if (!handler?.onCustomCallback) return { status: "failure" };
                return handler.onCustomCallback({ name: params.name, variables: params.variables ?? {}, behavior: params.behavior });
            }
            case "paywall/preload":
                await optional(presenter, "preload", method)(params.paywall as PreloadedPaywall);
                return {};
            case "paywall/showAlert":
                await optional(presenter, "showAlert", method)(params as any);
                return {};
            case "paywall/presentSurvey":
                return optional(presenter, "presentSurvey", method)(params as PaywallPresentSurveyParams);
            case "paywall/openUrl":
                await optional(presenter, "openUrl", method)(params.sessionId, params.url, params.mode);
                return {};
            case "paywall/requestReview":
                await optional(presenter, "requestReview", method)(params.sessionId, params.type, params.url);
                return {};
            case "paywall/requestPermission":
                return { status: await optional(presenter, "requestPermission", method)(params.sessionId, params.permission) };
            case "paywall/scheduleNotification": {
                const status = await optional(presenter, "scheduleNotification", method)(params.sessionId, params as any);
                return status === "granted" || status === "denied" ? { status } : {};
            }
            case "paywall/haptic":
                await optional(presenter, "haptic", method)(params.sessionId, params.type);
                return {};
            case "paywall/loadingState":
                await optional(presenter, "loadingState", method)(params.sessionId, params.state);
                return {};
            default:
                throw new ReplyError(-32601, `This client does not handle ${method}.`, { kind: "methodNotFound" });
        }
    }

    private async hear(method: string, params: unknown): Promise<void> {
        const fields = (params ?? {}) as Record<string, any>;
        if (method.startsWith("handler/")) {
            const id = String(fields.registerId);
            const handler = this.handlers.get(id);
            if (!handler) return;
            // A getPaywall's handler lives until its paywall is gone; a register's until it settles.
            if (id.startsWith("getPaywall-") && (method === "handler/onDismiss" || method === "handler/onError")) this.handlers.delete(id);
            switch (method) {
                case "handler/onPresent": return handler.onPresent?.(fields.paywallInfo);
                case "handler/onWillDismiss": return handler.onWillDismiss?.(fields.paywallInfo, fields.result);
                case "handler/onDismiss": return handler.onDismiss?.(fields.paywallInfo, fields.result);
                case "handler/onSkip": return handler.onSkip?.(fields.reason);
                case "handler/onError": return handler.onError?.(fields.error);
            }
            return;
        }
        if (method === "paywall/pageEvent") {
            await this.options.paywallPresenter?.pageEvent?.(fields.sessionId, fields.accept64);
            return;
        }
        if (method === "config/didRefresh") {
            for (const listener of this.listeners) listener(fields as ConfigRefresh);
            return;
        }
        if (!method.startsWith("delegate/")) return;
        // Each hears it, whichever of them throws; the first error is reported as the callback's.
        const errors: unknown[] = [];
        for (const delegate of [...this.observers, this.delegate]) {
            if (delegate) await Superwall.tell(delegate, method, params).catch((error: unknown) => { errors.push(error); });
        }
        if (errors.length > 0) throw errors[0];
    }

    /** One `delegate/*` notification, to one delegate. */
    private static async tell(delegate: SuperwallDelegate, method: string, params: unknown): Promise<void> {
        const fields = (params ?? {}) as Record<string, any>;
        switch (method.slice("delegate/".length)) {
            case "handleSuperwallEvent": {
                const { event, params: eventParams } = params as DelegateHandleSuperwallEventParams;
                return delegate.handleSuperwallEvent?.(event, eventParams ?? {});
            }
            case "subscriptionStatusDidChange": return delegate.subscriptionStatusDidChange?.(fields.from, fields.to);
            case "customerInfoDidChange": return delegate.customerInfoDidChange?.(fields.from, fields.to);
            case "willPresentPaywall": return delegate.willPresentPaywall?.(fields.paywallInfo);
            case "didPresentPaywall": return delegate.didPresentPaywall?.(fields.paywallInfo);
            case "willDismissPaywall": return delegate.willDismissPaywall?.(fields.paywallInfo);
            case "didDismissPaywall": return delegate.didDismissPaywall?.(fields.paywallInfo);
            case "handleCustomPaywallAction": return delegate.handleCustomPaywallAction?.(fields.name);
            case "paywallWillOpenURL": return delegate.paywallWillOpenURL?.(fields.url);
            case "paywallWillOpenDeepLink": return delegate.paywallWillOpenDeepLink?.(fields.url);
            case "userAttributesDidChange": return delegate.userAttributesDidChange?.(fields.attributes);
            case "handleSuperwallDeepLink": return delegate.handleSuperwallDeepLink?.(fields.url, fields.pathComponents, fields.queryParameters);
            case "handleLog": return delegate.handleLog?.(fields.level, fields.scope, fields.message ?? null, fields.info ?? null, fields.error ?? null);
            case "testModeTransaction": {
                const transaction = params as DelegateTestModeTransactionParams;
                return delegate.testModeTransaction?.(transaction.type, transaction.product);
            }
            case "willRedeemLink": return delegate.willRedeemLink?.();
            case "didRedeemLink": return delegate.didRedeemLink?.((params as DelegateDidRedeemLinkParams).result);
        }
    }
}

function required<T>(implementation: T | undefined, method: string): T {
    if (implementation === undefined) throw new ReplyError(-32601, `This client declared no handler for ${method}.`, { kind: "methodNotFound" });
    return implementation;
}

/** A presenter's optional method, bound; a missing one answers `methodNotFound`. */
function optional<Name extends keyof PaywallPresenter>(presenter: PaywallPresenter | undefined, name: Name, method: string): NonNullable<PaywallPresenter[Name]> {
    const implementation = presenter?.[name];
    if (typeof implementation !== "function") {
        throw new ReplyError(-32601, `This client's paywall presenter does not implement ${String(name)}.`, { kind: "methodNotFound", method });
    }
    return (implementation as Function).bind(presenter);
}
