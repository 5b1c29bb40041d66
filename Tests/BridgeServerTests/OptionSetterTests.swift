import BridgeServer
import Foundation
import JSONRPC
import Logging
import TestSupport
import Testing

@Suite struct OptionSetterTests {
    @Test func setLogLevelTakesSuperwallKitsNamesAndRefusesOthers() async {
        let levels = RecordingLogLevel()
        let process = await bridgeProcess(logLevel: levels)
        for name in ["debug", "warn", "none", "error", "trace"] {
            #expect(await call(process, "setLogLevel", ["level": .string(name)])?["result"] == [:], "\(name)")
        }
        #expect(levels.levels == [.debug, .warning, .critical, .error, .trace])
        #expect(await call(process, "setLogLevel", ["level": "loud"])?["error"]?["data"]?["path"] == "params.level")
    }

    /// The getters a wrapper would otherwise shadow: the level, the locale override and the
    /// options as they are now, runtime changes included.
    @Test func theLogLevelTheLocaleAndTheOptionsInEffectCanBeReadBack() async {
        let process = await bridgeProcess(logLevel: RecordingLogLevel())
        #expect(await call(process, "getOptions")?["error"]?["data"]?["kind"] == "notConfigured")
        #expect(await call(process, "awaitPresentations")?["result"] == ["onScreen": nil])
        _ = await call(process, "configure", configureParams(temporaryDirectory()))
        _ = await call(process, "setLogLevel", ["level": "warn"])
        #expect(await call(process, "getLogLevel")?["result"] == ["level": "warn"])
        #expect(await call(process, "getLocaleIdentifier")?["result"] == ["localeIdentifier": nil])
        _ = await call(process, "setLocaleIdentifier", ["localeIdentifier": "de_DE"])
        _ = await call(process, "setEventTrackingBehavior", ["behavior": "none"])
        _ = await call(process, "setOverrideProductsByName", ["productsByName": ["primary": "com.example.other"]])
        #expect(await call(process, "getLocaleIdentifier")?["result"] == ["localeIdentifier": "de_DE"])
        let options = await call(process, "getOptions")?["result"]?["options"]
        #expect(options?["localeIdentifier"] == "de_DE")
        #expect(options?["eventTrackingBehavior"] == "none")
        #expect(options?["overrideProductsByName"] == ["primary": "com.example.other"])
        #expect(options?["logLevel"] == 30)
        #expect(options?["shouldPreload"] != nil)
    }

    @Test func configuresLoggingSetsTheLogLevelAndTheScopesAndAnUnknownScopeIsAWarning() async {
        let levels = RecordingLogLevel()
        let process = await bridgeProcess(logLevel: levels)
        let result = await call(
            process,
            "configure",
            [
                "apiKey": "pk_test",
                "options": [
                    "configSource": ["type": "embedded"], "dataDirectory": .string(temporaryDirectory()),
                    "logging": ["level": "debug", "scopes": ["paywallPresentation", "paywallPresentaton"]],
                ],
            ]
        )?["result"]
        #expect(result?["configurationStatus"] == "configured")
        #expect(levels.levels == [.debug])
        #expect(levels.scopes == [["paywallPresentation", "paywallPresentaton"]])
        let warnings = result?["warnings"]?.arrayValue ?? []
        #expect(warnings.compactMap { $0["path"]?.stringValue } == ["params.options.logging.scopes"])
        #expect(warnings.first?["message"]?.stringValue?.contains("\"paywallPresentaton\"") == true)
        let refused = await call(
            process,
            "configure",
            [
                "apiKey": "pk_test", "options": ["configSource": ["type": "embedded"], "logging": ["level": "loud"]],
            ]
        )
        #expect(refused?["error"]?["data"]?["path"] == "params.options.logging.level")
        #expect(levels.levels == [.debug])
    }

    @Test func configuresLocaleIdentifierIsTheDevicesLocaleAndExperimentalVariablesAreAKnownOption() async {
        let process = await bridgeProcess()
        let result = await call(
            process,
            "configure",
            [
                "apiKey": "pk_test",
                "options": [
                    "configSource": ["type": "embedded"], "dataDirectory": .string(temporaryDirectory()),
                    "localeIdentifier": "de_DE",
                    "enableExperimentalDeviceVariables": true,
                ],
            ]
        )?["result"]
        #expect(result?["warnings"] == [])
        #expect(await call(process, "getDeviceAttributes")?["result"]?["attributes"]?["deviceLocale"] == "de_DE")
    }

    @Test func localeAndInterfaceStyleShowInTheDeviceAttributes() async {
        let process = await bridgeProcess()
        _ = await call(process, "configure", configureParams(temporaryDirectory()))
        #expect(await call(process, "setLocaleIdentifier", ["localeIdentifier": "fr_CA"])?["result"] == [:])
        #expect(await call(process, "setInterfaceStyle", ["style": "dark"])?["result"] == [:])
        var device = await call(process, "getDeviceAttributes")?["result"]?["attributes"]
        #expect(device?["deviceLocale"] == "fr_CA")
        #expect(device?["deviceLanguageCode"] == "fr")
        #expect(device?["regionCode"] == "CA")
        #expect(device?["interfaceStyle"] == "Dark")
        #expect(device?["interfaceStyleMode"] == "manual")
        _ = await call(process, "setInterfaceStyle", ["style": nil])
        device = await call(process, "getDeviceAttributes")?["result"]?["attributes"]
        #expect(device?["interfaceStyleMode"] == "automatic")
        #expect(await call(process, "setInterfaceStyle", ["style": "sepia"])?["error"]?["code"] == -32602)
    }
}
