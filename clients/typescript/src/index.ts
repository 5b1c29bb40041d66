import "./nodeVersion";
export * from "./generated/protocol";
export { BridgeClosedError, BridgeError, BridgeTimeoutError, UnknownPlacementError } from "./errors";
export { Connection, DEFAULT_TIMEOUT_MS, ReplyError, type CancellationSignal, type ConnectionOptions, type Framing, type WireObserver } from "./connection";
export {
    Superwall, findBridge, bundledBridge, bundledLibrary, PROTOCOL_VERSION, INTERACTIVE_TIMEOUT_MS, type ConfigureArguments, type LaunchOptions, type PaywallPresenter, type TestModeUI,
    type PaywallPresentationHandler, type PurchaseAnswer, type PurchaseController, type RegisterArguments, type RestoreAnswer,
    type SuperwallDelegate,
} from "./superwall";
export { decisionGate, formatDecision } from "./decisions";
export { accept64Script, decodePageEvents, type PageEvent } from "./page";
export { Placement, User, subscribeToSuperwallEvents, type PaywallState, type PlacementCallbacks, type RegisterPlacementArgs, type SuperwallEventCallbacks } from "./expo";
