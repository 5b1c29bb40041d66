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

    @Test func configuresLoggingLevelSetsTheLogLevelAndScopesAreAnsweredAsNotApplied() async {
        let levels = RecordingLogLevel()
        let process = await bridgeProcess(logLevel: levels)
        let result = await call(
            process,
            "configure",
            [
                "apiKey": "pk_test",
                "options": [
                    "configSource": ["type": "embedded"], "dataDirectory": .string(temporaryDirectory()),
                    "logging": ["level": "debug", "scopes": ["paywallPresentation"]],
                ],
            ]
        )?["result"]
        #expect(result?["configurationStatus"] == "configured")
        #expect(levels.levels == [.debug])
        #expect(
            result?["warnings"]?.arrayValue?.compactMap { $0["path"]?.stringValue } == ["params.options.logging.scopes"]
        )
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
