import Foundation

/// Which links a paywall page may have the host open. A page is remote content: what it
/// names goes to the host's browser or URL handler as it is, so the schemes that run code or
/// read the device (`javascript:`, `file:`, `data:`, ...) are refused.
///
/// SuperwallKit opens `open_url` in SFSafariViewController, which takes only `http` and
/// `https`, and ignores a URL the system cannot open; its external browser and deep links go
/// through `UIApplication.open`, which has no handler for those schemes.
enum PageURLPolicy {
    static let scriptOrLocalSchemes: Set<String> = [
        "javascript", "vbscript", "file", "data", "blob", "filesystem", "about", "content",
    ]

    /// Why `url` may not be opened in `mode`, if it may not.
    static func refusal(of url: String, as mode: PageEffect.URLMode) -> String? {
        guard let scheme = URLComponents(string: url)?.scheme?.lowercased(), !scheme.isEmpty else {
            return "it is not a URL with a scheme"
        }
        if scriptOrLocalSchemes.contains(scheme) { return "the \(scheme): scheme is never opened from a paywall" }
        switch mode {
        case .inApp, .paymentSheet:
            guard scheme == "http" || scheme == "https" else {
                return "an in-app browser opens http and https only, not \(scheme):"
            }
        case .external, .deepLink:
            break
        }
        return nil
    }
}
