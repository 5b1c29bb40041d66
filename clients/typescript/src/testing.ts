/**
 * Test doubles for an app's integration tests against the bridge, for `node:test` (or any
 * runner): `import { startTestBridge, PaywallActions } from "superwall-bridge/testing"`.
 *
 * - `FakeStore`: a purchase controller with scripted outcomes that sets the subscription
 *   status a real store would;
 * - `PaywallDriver`: a paywall presenter that acts on each paywall shown as the test scripts;
 * - `EventRecorder`: a delegate that records every event, with assertions on them;
 * - `startTestBridge()`: a bridge configured for one test (its own data directory, the manual
 *   clock, a fixed seed) and wired to the three;
 * - `FakeSuperwallAPI`: a local Superwall API for HTTP-mode tests, with what the bridge sent it.
 */
// This entry point only checks the Node version and re-exports: a Node too old to parse the
// toolkit is told what it needs, not where the parser stopped.
import "./nodeVersion";
export * from "./toolkit";
