import Foundation
import GRDB
import TestSupport
import Testing

@testable import SuperwallCore

/// A minimal valid config, compact, whose text the tests below edit byte by byte.
let minimalConfig = #"""
    {"build_id":"b","log_level":10,"app_session_timeout_ms":3600000,"toggles":[],"disable_preload":{"all":false,"triggers":[]},"localization":{"locales":[]},"trigger_options":[{"event_name":"p","rules":[{"experiment_id":"1","experiment_group_id":"2","preload":{"behavior":"ALWAYS"},"variants":[{"variant_id":"v","variant_type":"TREATMENT","percentage":100,"paywall_identifier":"w"}]}]}],"paywall_responses":[{"id":"9","identifier":"w","name":"W","cache_key":"k","build_id":"b","url":"https://example.com","url_config":{"endpoints":[],"max_attempts":1},"paywalljs_event":"","presentation_style_v3":{"type":"MODAL"},"presentation_delay":0,"background_color_hex":"#FFF","products_v2":[]}],"products_v3":[{"store_product":{"store":"APP_STORE","product_identifier":"a"},"entitlements":[{"identifier":"pro","type":"SERVICE_LEVEL"}]}]}
    """#

func decode(_ text: String) throws(ConfigDecodingError) -> Config {
    try Config.decode(from: Data(text.utf8))
}
