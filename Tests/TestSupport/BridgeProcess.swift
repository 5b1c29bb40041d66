import Foundation
import JSONRPC

/// The built `superwall-bridge` binary running as a child process, with a `FramedPeer` on its
/// stdin and stdout and its stderr collected in a file.
public final class BridgeProcess: @unchecked Sendable {
    public let client: FramedPeer
    public let pid: pid_t
    public let stderrPath: String
    private var exitStatus: Int32?

    /// `SUPERWALL_BRIDGE_BIN` when set (the Makefile sets it), else the binary beside the test
    /// bundle, which is where `swift build` puts it.
    public static var binaryPath: String {
        if let path = ProcessInfo.processInfo.environment["SUPERWALL_BRIDGE_BIN"], !path.isEmpty { return path }
        let bundle = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        return bundle.appendingPathComponent("superwall-bridge").path
    }

    /// With `SUPERWALL_WIRE_TRACES` set (the Makefile sets it), every bridge a test starts
    /// traces its frames into that directory, where the Python suite checks each message
    /// the bridge sent against `protocol/openrpc.json`.
    static func wireTraceArguments(unless arguments: [String]) -> [String] {
        guard !arguments.contains("--trace"), let directory = ProcessInfo.processInfo.environment["SUPERWALL_WIRE_TRACES"],
              !directory.isEmpty else { return [] }
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        return ["--trace", "\(directory)/swift-\(UUID().uuidString).jsonl"]
    }

    public init(arguments: [String] = [], framing: Framing = .newlineDelimited) throws {
        let stdin = Pipe2()
        let stdout = Pipe2()
        stderrPath = FileManager.default.temporaryDirectory.appendingPathComponent("bridge-stderr-\(UUID().uuidString).log").path
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, stdin.read, 0)
        posix_spawn_file_actions_adddup2(&actions, stdout.write, 1)
        posix_spawn_file_actions_addopen(&actions, 2, stderrPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        // Spawned from a worker thread, the child would inherit its blocked signals.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var emptyMask = sigset_t()
        sigemptyset(&emptyMask)
        posix_spawnattr_setsigmask(&attributes, &emptyMask)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
        let argv = [Self.binaryPath] + arguments + Self.wireTraceArguments(unless: arguments)
        var cArguments = argv.map { strdup($0) } + [nil]
        defer { cArguments.forEach { free($0) } }
        var child: pid_t = 0
        let result = posix_spawn(&child, Self.binaryPath, &actions, &attributes, &cArguments, environ)
        close(stdin.read)
        close(stdout.write)
        guard result == 0 else {
            close(stdin.write)
            close(stdout.read)
            throw CocoaError(.executableLoad, userInfo: [NSFilePathErrorKey: Self.binaryPath])
        }
        pid = child
        client = FramedPeer(read: stdout.read, write: stdin.write, framing: framing)
    }

    /// The exit status once the process has ended, or nil if it has not within `timeout`.
    public func waitForExit(timeout: Duration = .seconds(10)) async -> Int32? {
        let deadline = ContinuousClock.now + timeout
        while exitStatus == nil, ContinuousClock.now < deadline {
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid {
                // WIFEXITED / WEXITSTATUS, spelled out: the macros do not import into Swift.
                exitStatus = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
                break
            }
            try? await Task.sleep(for: .milliseconds(2))
        }
        return exitStatus
    }

    public var stderr: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }

    @discardableResult
    public func initialize(capabilities: JSONValue = [:]) async -> JSONValue? {
        client.request(0, "initialize", ["protocolVersion": "1.0", "client": ["name": "e2e", "version": "1"], "capabilities": capabilities])
        return await client.nextReply()
    }

    deinit {
        if exitStatus == nil {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
        }
        try? FileManager.default.removeItem(atPath: stderrPath)
    }
}

/// Runs the binary to completion with no input and returns its exit status and output. The
/// child's output goes to files and its exit is polled between sleeps: blocking one of the
/// few threads of Swift's cooperative pool on a child process stalls every other test of the
/// run meanwhile (and Foundation's `Process` is not safe to launch from many threads at once).
public func runBridge(_ arguments: [String]) async throws -> (status: Int32, stdout: String, stderr: String) {
    let folder = FileManager.default.temporaryDirectory
    let outPath = folder.appendingPathComponent("run-out-\(UUID().uuidString)").path
    let errPath = folder.appendingPathComponent("run-err-\(UUID().uuidString)").path
    defer {
        try? FileManager.default.removeItem(atPath: outPath)
        try? FileManager.default.removeItem(atPath: errPath)
    }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var emptyMask = sigset_t()
    sigemptyset(&emptyMask)
    posix_spawnattr_setsigmask(&attributes, &emptyMask)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
    var cArguments = ([BridgeProcess.binaryPath] + arguments).map { strdup($0) } + [nil]
    defer { cArguments.forEach { free($0) } }
    var child: pid_t = 0
    guard posix_spawn(&child, BridgeProcess.binaryPath, &actions, &attributes, &cArguments, environ) == 0 else {
        throw CocoaError(.executableLoad, userInfo: [NSFilePathErrorKey: BridgeProcess.binaryPath])
    }
    var status: Int32 = 0
    while waitpid(child, &status, WNOHANG) != child {
        try await Task.sleep(for: .milliseconds(2))
    }
    // WIFEXITED / WEXITSTATUS, spelled out: the macros do not import into Swift.
    let exitStatus = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
    let stdout = (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? ""
    let stderr = (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? ""
    return (exitStatus, stdout, stderr)
}
