import Foundation
import JSONRPC
import TestSupport
import Testing

@Suite struct ProcessHygieneTests {
    @Test func stdoutCarriesOnlyFramesWhileLogsGoToStderr() async throws {
        let bridge = try BridgeProcess(arguments: ["--log-level", "trace"])
        await bridge.initialize()
        bridge.client.send("not json")
        bridge.client.request(2, "no/such/method")
        bridge.client.closeWriting()
        var replies = 0
        // Every body the framed reader returns parsed as JSON, or the count would be short.
        while let body = await bridge.client.nextBody() {
            #expect((try? JSONDecoding.decode(body)) != nil, "stdout carried \(String(decoding: body, as: UTF8.self))")
            replies += 1
        }
        #expect(replies == 2)
        #expect(await bridge.waitForExit() == 0)
        #expect(bridge.stderr.contains("initialized by e2e"))
    }

    @Test func setLogLevelChangesWhatReachesStderr() async throws {
        let bridge = try BridgeProcess(arguments: ["--log-level", "warning"])
        await bridge.initialize()
        // A reply to nothing is logged at debug level, in order with the requests around it.
        bridge.client.send(#"{"jsonrpc":"2.0","id":"sw-before","result":1}"#)
        bridge.client.request(1, "setLogLevel", ["level": "debug"])
        #expect(await bridge.client.next()?["result"] == [:])
        bridge.client.send(#"{"jsonrpc":"2.0","id":"sw-after","result":1}"#)
        bridge.client.closeWriting()
        #expect(await bridge.waitForExit() == 0)
        #expect(!bridge.stderr.contains("sw-before"))
        #expect(bridge.stderr.contains("ignored a reply to \"sw-after\""))
    }

    @Test func theTraceFlagRecordsFramesInAndOut() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("e2e-trace-\(UUID().uuidString).jsonl")
            .path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let bridge = try BridgeProcess(arguments: ["--trace", path])
        await bridge.initialize()
        bridge.client.closeWriting()
        #expect(await bridge.waitForExit() == 0)
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map {
            try JSONDecoding.decode(String($0))
        }
        #expect(lines.map { $0["direction"] } == ["in", "out"])
        #expect(lines[0]["frame"]?.stringValue?.contains("\"initialize\"") == true)
    }

    @Test func versionAndHelpDescribeTheBinary() async throws {
        let version = try await runBridge(["--version"])
        #expect(version.status == 0)
        #expect(version.stdout.contains("superwall-bridge 0.1.0"))
        let help = try await runBridge(["serve", "--help"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("--trace"))
        #expect(help.stdout.contains("--log-level"))
    }

    /// The serving flags appear in the top-level help, not only under `help serve`.
    @Test func theTopLevelHelpShowsTheServingFlagsAndTheSubcommands() async throws {
        let help = try await runBridge(["--help"])
        #expect(help.status == 0)
        for flag in ["--log-level", "--trace", "--framing", "--max-message-size", "--watch", "eval", "validate"] {
            #expect(help.stdout.contains(flag), "\(flag) is missing from --help")
        }
    }

    @Test func badCommandLinesFailWithUsageOnStderr() async throws {
        let result = try await runBridge(["--log-level", "loud"])
        #expect(result.status != 0)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("log-level"))
    }

    @Test func anUnwritableTraceFileIsAClearStartupError() async throws {
        let result = try await runBridge(["--trace", "/nonexistent-dir/trace.jsonl"])
        #expect(result.status != 0)
        #expect(result.stderr.contains("cannot open trace file"))
    }

    /// SIGTERM ends the session as end of input does: ended at once, the process left a third
    /// of 2,001 pipelined requests unanswered.
    @Test(arguments: [SIGTERM, SIGINT, SIGHUP])
    func aSignalFinishesWhatWasReadThenExitsZero(_ number: Int32) async throws {
        let bridge = try BridgeProcess()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("signal-\(UUID().uuidString)")
            .path
        await bridge.initialize(capabilities: ["purchaseController": true])
        bridge.client.request(
            1,
            "configure",
            [
                "apiKey": "pk_test",
                "options": [
                    "configSource": ["type": "embedded"], "dataDirectory": .string(directory),
                    "timeouts": ["subscriptionStatusMs": 2000],
                ],
            ]
        )
        #expect(await bridge.client.nextReply()?["id"] == 1)
        // Waits for a subscription status that never comes: in flight when the signal arrives.
        bridge.client.request(2, "register", ["placement": "workout_shared"])
        bridge.client.request(3, "$/ping")
        #expect(await bridge.client.nextReply()?["id"] == 3)
        kill(bridge.pid, number)
        let reply = await bridge.client.nextReply()
        #expect(reply?["id"] == 2)
        #expect(await bridge.waitForExit() == 0)
    }

    @Test func sigtermStopsTheBridgeEvenIfItsParentBlockedSignals() async throws {
        // Start it with SIGTERM ignored, as a careless parent might.
        let input = Pipe()
        let output = Pipe()
        let process = try ChildProcess(
            "/bin/sh",
            ["-c", "trap '' TERM; exec \"$0\"", BridgeProcess.binaryPath],
            stdin: input.fileHandleForReading.fileDescriptor,
            stdout: output.fileHandleForWriting.fileDescriptor
        )
        try? input.fileHandleForReading.close()
        try? output.fileHandleForWriting.close()
        defer { try? input.fileHandleForWriting.close() }
        // Its first answer shows it has set its signals back; a fixed pause was too short
        // for a loaded machine, and a SIGTERM sent before that is ignored.
        input.fileHandleForWriting.write(Data(#"{"jsonrpc":"2.0","id":1,"method":"$/ping"}\#n"#.utf8))
        let pid = process.pid
        let giveUp = Task {
            try await Task.sleep(for: expectationTimeout)
            kill(pid, SIGKILL)
        }
        // A blocking read: on a thread of its own, not the cooperative pool's.
        let firstBytes = await onAThreadOfItsOwn { output.fileHandleForReading.availableData }
        #expect(firstBytes.isEmpty == false)
        giveUp.cancel()
        process.terminate()
        let deadline = ContinuousClock.now + expectationTimeout
        while process.isRunning, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        #expect(!process.isRunning)
    }

    @Test func aClientThatVanishesMidRequestDoesNotHangTheBridge() async throws {
        let bridge = try BridgeProcess()
        await bridge.initialize()
        bridge.client.request(1, "debug/echo", [.string(String(repeating: "y", count: 1 << 20))])
        // Close both ends without reading the reply: the bridge's writes fail, it still exits.
        bridge.client.closeWriting()
        bridge.client.closeReading()
        #expect(await bridge.waitForExit() == 0)
    }
}
