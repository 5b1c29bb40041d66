import BridgeServer
import Foundation
import JSONRPC
import Logging
import TestSupport
import Testing

@Suite struct PlatformWrapperTests {
    /// Wrappers say who they are, often before `configure`; the device attributes report it.
    @Test func aWrapperNamedBeforeConfigureIsReportedInTheDeviceAttributes() async {
        let process = await bridgeProcess()
        #expect(
            await call(process, "setPlatformWrapper", ["platformWrapper": "Flutter", "version": "2.3.1"])?["result"]
                == [:]
        )
        _ = await call(process, "configure", configureParams(temporaryDirectory()))
        let device = await call(process, "getDeviceAttributes")?["result"]?["attributes"]
        #expect(device?["platformWrapper"] == "Flutter")
        #expect(device?["platformWrapperVersion"] == "2.3.1")
        #expect(
            await call(process, "setPlatformWrapper", ["platformWrapper": "Flutter"])?["error"]?["data"]?["path"]
                == "params.version"
        )
    }
}
