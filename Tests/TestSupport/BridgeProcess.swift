import Executors
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
        // `fake-api` is not a bridge: it speaks HTTP, not the protocol.
        guard !arguments.contains("--trace"), arguments.first != "fake-api",
            let directory = ProcessInfo.processInfo.environment["SUPERWALL_WIRE_TRACES"],
            !directory.isEmpty
        else { return [] }
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        return ["--trace", "\(directory)/swift-\(UUID().uuidString).jsonl"]
    }

    /// `launcher` runs the binary through another command (`["/usr/bin/prlimit", "--fsize=…"]`).
    public init(arguments: [String] = [], framing: Framing = .newlineDelimited, launcher: [String] = []) throws {
        let stdin = Pipe2()
        let stdout = Pipe2()
        let stderrPath = FileManager.default.temporaryDirectory.appendingPathComponent(
            "bridge-stderr-\(UUID().uuidString).log"
        ).path
        self.stderrPath = stderrPath
        let bridgeArguments = arguments + Self.wireTraceArguments(unless: arguments)
        let redirect: (inout posix_spawn_file_actions_t) -> Void = { actions in
            posix_spawn_file_actions_adddup2(&actions, stdin.read, 0)
            posix_spawn_file_actions_adddup2(&actions, stdout.write, 1)
            posix_spawn_file_actions_addopen(&actions, 2, stderrPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        }
        let child =
            launcher.isEmpty
            ? spawnBridge(bridgeArguments, redirect: redirect)
            : spawn(launcher[0], Array(launcher.dropFirst()) + [Self.binaryPath] + bridgeArguments, redirect: redirect)
        close(stdin.read)
        close(stdout.write)
        guard let child else {
            close(stdin.write)
            close(stdout.read)
            throw CocoaError(.executableLoad, userInfo: [NSFilePathErrorKey: Self.binaryPath])
        }
        pid = child
        client = FramedPeer(read: stdout.read, write: stdin.write, framing: framing)
    }

    /// The exit status once the process has ended, or nil if it has not within `timeout`.
    public func waitForExit(timeout: Duration = expectationTimeout) async -> Int32? {
        let deadline = ContinuousClock.now + timeout
        while exitStatus == nil, ContinuousClock.now < deadline {
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid {
                exitStatus = exitCode(ofWaitStatus: status)
                break
            }
            try? await DeadlineTimer.sleep(for: .milliseconds(2))
        }
        return exitStatus
    }

    public var stderr: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }

    @discardableResult
    public func initialize(capabilities: JSONValue = [:]) async -> JSONValue? {
        client.request(
            0,
            "initialize",
            ["protocolVersion": "1.0", "client": ["name": "e2e", "version": "1"], "capabilities": capabilities]
        )
        return await client.nextReply()
    }

    deinit {
        if exitStatus == nil {
            kill(pid, SIGKILL)
            reapOnAThreadOfItsOwn(pid)
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
    let spawned = spawnBridge(arguments) { actions in
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    }
    guard let child = spawned else {
        throw CocoaError(.executableLoad, userInfo: [NSFilePathErrorKey: BridgeProcess.binaryPath])
    }
    var status: Int32 = 0
    while waitpid(child, &status, WNOHANG) != child {
        try await Task.sleep(for: .milliseconds(2))
    }
    let stdout = (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? ""
    let stderr = (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? ""
    return (exitCode(ofWaitStatus: status), stdout, stderr)
}

/// The exit status `waitpid` reported, or 128 + the signal that ended the process
/// (WIFEXITED / WEXITSTATUS, spelled out: the macros do not import into Swift).
private func exitCode(ofWaitStatus status: Int32) -> Int32 {
    (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
}

/// Starts the binary with `arguments`, its descriptors set up by `redirect`.
private func spawnBridge(_ arguments: [String], redirect: (inout posix_spawn_file_actions_t) -> Void) -> pid_t? {
    spawn(BridgeProcess.binaryPath, arguments, redirect: redirect)
}

/// Starts `executable` with `arguments`, its descriptors set up by `redirect`, and every
/// signal unblocked (spawned from a worker thread, the child would inherit that thread's
/// blocked signals). Answers the child's pid, or nil when it could not start.
private func spawn(
    _ executable: String,
    _ arguments: [String],
    redirect: (inout posix_spawn_file_actions_t) -> Void
) -> pid_t? {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    redirect(&actions)
    // Nothing else of ours goes with it: a child holding a copy of another test's data
    // directory lock, or of its database, keeps them past that test.
    _ = addCloseFrom(&actions, 3)
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var emptyMask = sigset_t()
    sigemptyset(&emptyMask)
    posix_spawnattr_setsigmask(&attributes, &emptyMask)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
    var cArguments = ([executable] + arguments).map { strdup($0) } + [nil]
    defer { for argument in cArguments { free(argument) } }
    var child: pid_t = 0
    return posix_spawn(&child, executable, &actions, &attributes, &cArguments, environ) == 0 ? child : nil
}

/// A child process the tests start beside the bridge (a scripted server, a shell), through
/// `posix_spawn`: Foundation's `Process.run()` crashed copying memory inside Foundation on
/// Linux, even with its launches made one at a time.
public final class ChildProcess: @unchecked Sendable {
    public let pid: pid_t
    private let lock = NSLock()
    private var ended = false

    /// `stdin` and `stdout` become the child's 0 and 1 (`/dev/null` when nil); the caller
    /// closes its own copies.
    public init(_ executable: String, _ arguments: [String], stdin: Int32? = nil, stdout: Int32? = nil) throws {
        let child = spawn(executable, arguments) { actions in
            if let stdin {
                posix_spawn_file_actions_adddup2(&actions, stdin, 0)
            } else {
                posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
            }
            if let stdout {
                posix_spawn_file_actions_adddup2(&actions, stdout, 1)
            } else {
                posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
            }
        }
        guard let child else { throw CocoaError(.executableLoad, userInfo: [NSFilePathErrorKey: executable]) }
        pid = child
    }

    /// Whether it has not ended yet (an ended child is reaped).
    public var isRunning: Bool {
        lock.withLock {
            guard !ended else { return false }
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid { ended = true }
            return !ended
        }
    }

    /// Sends SIGTERM, if it is still running.
    public func terminate() {
        if isRunning { kill(pid, SIGTERM) }
    }

    /// Sends SIGTERM and reaps it on a thread of its own, without waiting: for a deinit,
    /// which may run on a thread of the cooperative pool.
    public func terminateInTheBackground() {
        terminate()
        Thread.detachNewThread { [self] in waitUntilExit() }
    }

    /// Blocks until it has ended, and reaps it.
    public func waitUntilExit() {
        lock.withLock {
            guard !ended else { return }
            var status: Int32 = 0
            while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
            ended = true
        }
    }
}

/// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later), which Swift's Glibc
/// module leaves out (it is behind `_GNU_SOURCE`).
@_silgen_name("posix_spawn_file_actions_addclosefrom_np")
private func addCloseFrom(_ actions: UnsafeMutablePointer<posix_spawn_file_actions_t>, _ from: Int32) -> Int32

/// Waits for a child that was sent SIGKILL and reaps it, on a thread of its own: a test's
/// last reference may go on a thread of the cooperative pool, which must not block.
func reapOnAThreadOfItsOwn(_ pid: pid_t) {
    Thread.detachNewThread {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
    }
}
