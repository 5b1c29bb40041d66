// expo-superwall's hooks without React: what `usePlacement`, `useUser` and `useSuperwallEvents`
// do, over a `Superwall`, with their names and shapes, so that an Expo app's paywall logic can
// be moved to Node and tested there. The hooks' React state becomes a property to read.
import type { Superwall, SuperwallDelegate } from "./superwall";
import type {
    Attributes, CustomCallbackResult, CustomerInfo, EntitlementsInfo, ErrorObject, PaywallInfo, PaywallResult, SkipReason,
    SubscriptionStatus, SubscriptionStatusInput, TrackedEvent, DelegateDidRedeemLinkParams,
} from "./generated/protocol";

/** `usePlacement`'s `state`. */
export type PaywallState =
    | { status: "idle" }
    | { status: "presented"; paywallInfo: PaywallInfo }
    | { status: "dismissed"; result: PaywallResult }
    | { status: "skipped"; reason: SkipReason }
    | { status: "error"; error: string };

/** `usePlacement`'s callbacks. */
export interface PlacementCallbacks {
    onPresent?: (paywallInfo: PaywallInfo) => void;
    onDismiss?: (paywallInfo: PaywallInfo, result: PaywallResult) => void;
    onSkip?: (reason: SkipReason) => void;
    onError?: (error: string) => void;
    onCustomCallback?: (callback: { name: string; variables: Attributes; behavior: string }) => CustomCallbackResult | Promise<CustomCallbackResult>;
}

/** `registerPlacement`'s argument. */
export interface RegisterPlacementArgs {
    placement: string;
    params?: Attributes;
    /** Runs when the bridge grants the feature: a skip, a purchase, a declined non-gated paywall. */
    feature?: () => void | Promise<void>;
}

/** `usePlacement(callbacks)`: `registerPlacement` and the `state` of the last placement it
 * registered (`new Placement(superwall, callbacks)`). */
export class Placement {
    /** What the last `registerPlacement` came to: presented, dismissed, skipped or an error. */
    state: PaywallState = { status: "idle" };

    constructor(private readonly superwall: Superwall, private readonly callbacks: PlacementCallbacks = {}) {}

    /** Registers `placement`; `feature` runs if the bridge grants it. Answers when the
     * presentation has ended, `state` said how. */
    async registerPlacement({ placement, params, feature }: RegisterPlacementArgs): Promise<void> {
        const callbacks = this.callbacks;
        await this.superwall.register({
            placement, params, feature,
            handler: {
                onPresent: (paywallInfo) => { this.state = { status: "presented", paywallInfo }; callbacks.onPresent?.(paywallInfo); },
                onDismiss: (paywallInfo, result) => { this.state = { status: "dismissed", result }; callbacks.onDismiss?.(paywallInfo, result); },
                onSkip: (reason) => { this.state = { status: "skipped", reason }; callbacks.onSkip?.(reason); },
                onError: (error: ErrorObject) => { this.state = { status: "error", error: error.message }; callbacks.onError?.(error.message); },
                ...(callbacks.onCustomCallback ? { onCustomCallback: callbacks.onCustomCallback } : {}),
            },
        });
    }
}

/** `useUser()`: the user's calls under expo-superwall's names, and `user` / `subscriptionStatus`
 * as last read (`new User(superwall)`, then `refresh()` reads them). */
export class User {
    /** The user's attributes, as last read or written. */
    user: Attributes | undefined;
    /** The subscription status, as last read or set. */
    subscriptionStatus: SubscriptionStatus | undefined;

    constructor(private readonly superwall: Superwall) {}

    async identify(userId: string, options?: { restorePaywallAssignments?: boolean }): Promise<void> {
        await this.superwall.identify(userId, options);
        await this.refresh();
    }

    /** Sets attributes, or what a function makes of the current ones (`update(old => ...)`). */
    async update(attributes: Attributes | ((old: Attributes) => Attributes)): Promise<void> {
        const next = typeof attributes === "function" ? attributes(this.user ?? {}) : attributes;
        this.user = await this.superwall.setUserAttributes(next);
    }

    /** `reset()`. */
    async signOut(): Promise<void> {
        await this.superwall.reset();
        await this.refresh();
    }

    /** Reads the attributes and the status again; answers the attributes. */
    async refresh(): Promise<Attributes> {
        this.user = await this.superwall.getUserAttributes();
        this.subscriptionStatus = await this.superwall.getSubscriptionStatus();
        return this.user;
    }

    async setSubscriptionStatus(status: SubscriptionStatusInput): Promise<void> {
        this.subscriptionStatus = await this.superwall.setSubscriptionStatus(status);
    }

    setIntegrationAttributes(attributes: Attributes): Promise<Attributes> {
        return this.superwall.setIntegrationAttributes(attributes);
    }

    getIntegrationAttributes(): Promise<Attributes> {
        return this.superwall.getIntegrationAttributes();
    }

    getEntitlements(): Promise<EntitlementsInfo> {
        return this.superwall.getEntitlements();
    }
}

/** `useSuperwallEvents`' callbacks that the bridge's delegate notifications carry. The
 * placement ones (`onPaywallPresent`, `onPaywallDismiss`, `onPaywallSkip`, `onPaywallError`)
 * come per placement, as `Placement`'s callbacks. */
export interface SuperwallEventCallbacks {
    onSubscriptionStatusChange?: (status: SubscriptionStatus) => void;
    onSuperwallEvent?: (eventInfo: { event: TrackedEvent; params: Record<string, unknown> }) => void;
    onCustomPaywallAction?: (name: string) => void;
    willDismissPaywall?: (paywallInfo: PaywallInfo) => void;
    willPresentPaywall?: (paywallInfo: PaywallInfo) => void;
    didDismissPaywall?: (paywallInfo: PaywallInfo) => void;
    didPresentPaywall?: (paywallInfo: PaywallInfo) => void;
    onPaywallWillOpenURL?: (url: string) => void;
    onPaywallWillOpenDeepLink?: (url: string) => void;
    onLog?: (params: { level: string; scope: string; message: string | null; info: Record<string, string> | null; error: string | null }) => void;
    willRedeemLink?: () => void;
    didRedeemLink?: (result: DelegateDidRedeemLinkParams["result"]) => void;
    onCustomerInfoChange?: (customerInfo: CustomerInfo) => void;
}

/** `useSuperwallEvents(callbacks)`, without React: the callbacks hear the bridge's delegate
 * notifications beside the app's delegate until the returned function is called. */
export function subscribeToSuperwallEvents(superwall: Superwall, callbacks: SuperwallEventCallbacks): Promise<() => Promise<void>> {
    const observer: SuperwallDelegate = {
        handleSuperwallEvent: (event, params) => callbacks.onSuperwallEvent?.({ event, params }),
        subscriptionStatusDidChange: (_from, to) => callbacks.onSubscriptionStatusChange?.(to),
        customerInfoDidChange: (_from, to) => callbacks.onCustomerInfoChange?.(to),
        handleCustomPaywallAction: (name) => callbacks.onCustomPaywallAction?.(name),
        willDismissPaywall: (info) => callbacks.willDismissPaywall?.(info),
        willPresentPaywall: (info) => callbacks.willPresentPaywall?.(info),
        didDismissPaywall: (info) => callbacks.didDismissPaywall?.(info),
        didPresentPaywall: (info) => callbacks.didPresentPaywall?.(info),
        paywallWillOpenURL: (url) => callbacks.onPaywallWillOpenURL?.(url),
        paywallWillOpenDeepLink: (url) => callbacks.onPaywallWillOpenDeepLink?.(url),
        handleLog: (level, scope, message, info, error) => callbacks.onLog?.({ level, scope, message, info, error }),
        willRedeemLink: () => callbacks.willRedeemLink?.(),
        didRedeemLink: (result) => callbacks.didRedeemLink?.(result),
    };
    return superwall.observeDelegate(observer);
}
