import Foundation
import TestSupport
import Testing

@testable import SuperwallCore

/// A `configure` on a directory another session of the process is letting go of waits for it
/// suspended, not on a thread.
@Suite struct HeldDataDirectoriesTests {
    private func freshPath() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("held-\(UUID().uuidString)").path
    }

    @Test func aWaitForADirectoryThisProcessHoldsEndsWhenItsSessionLetsGo() async throws {
        let path = freshPath()
        let directory = try DataDirectory(path: path)
        let released = try #require(HeldDataDirectories.releaseSignal(of: path + "/."))
        directory.close()
        await released.value
        #expect(HeldDataDirectories.releaseSignal(of: path) == nil)
        #expect(await HeldDataDirectories.waitUntilReleased(path, within: slowExpectationTimeout))
        // The directory opens at once now.
        let reopened = try DataDirectory(path: path + "/")
        reopened.close()
    }

    @Test func aWaitEndsAtItsLimitWhileTheDirectoryIsStillHeld() async throws {
        let path = freshPath()
        let directory = try DataDirectory(path: path)
        #expect(await HeldDataDirectories.waitUntilReleased(path, within: .milliseconds(20)) == false)
        directory.close()
        #expect(await HeldDataDirectories.waitUntilReleased(path, within: .zero))
    }

    @Test func aDirectoryNoSessionHoldsIsNotWaitedFor() async {
        #expect(await HeldDataDirectories.waitUntilReleased(freshPath(), within: .zero))
    }
}
