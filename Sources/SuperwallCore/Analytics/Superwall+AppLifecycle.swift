import Executors
import Foundation

/// The app's foreground and background, as the host reports them (SuperwallKit's
/// `AppSessionManager`, listening to UIKit's notifications of the same names).
extension Superwall {
    /// The app came to the foreground: `app_open`, the web entitlements when they are due, and a new session (`session_start`, whose
    /// campaign may present, then `device_attributes`, `user_attributes` and, under `enable_config_refresh_v2`, a config refresh)
    /// when it was away longer than the config's `app_session_timeout_ms`.
    ///
    /// The session `configure` started is the first one, so an activation the host reports
    /// without a background before it starts nothing new (SuperwallKit would see its launch
    /// activation here).
    public func appDidBecomeActive() throws(SuperwallError) {
        try answeringWithoutSuspending { () throws(SuperwallError) -> Void in
            guard let session else { return }
            track("app_open")
            pollWebEntitlements(force: false)
            let timeout = Double(session.config?.appSessionTimeoutMs ?? 3_600_000) / 1000
            guard tracker.appCameBack(at: clock.now(), startsAnAppSessionAfter: timeout) else { return }
            tracker.startAppSession(random.uuid().uuidString)
            track("session_start")
            trackDeviceAttributes()
            track(
                "user_attributes",
                ["application_installed_at": .string(ISO8601.string(from: session.appInstalledAt))],
                custom: session.userAttributes
            )
            // SuperwallKit refreshes on a new app session only under the config's
            // `enable_config_refresh_v2`.
            if session.config?.featureFlags.enableConfigRefreshV2 == true, configLoading.backend != nil {
                configLoading.runsInBackground(
                    startTask { superwall in
                        _ = try? await superwall.refreshConfiguration()
                    }
                )
            }
        }
    }

    /// The app went to the background: `app_close`; its time decides whether the next
    /// activation starts a new session.
    public func appWillResignActive() throws(SuperwallError) {
        try answeringWithoutSuspending { () throws(SuperwallError) -> Void in
            guard session != nil else { return }
            track("app_close")
            tracker.appWentToBackground(at: clock.now())
        }
    }
}
