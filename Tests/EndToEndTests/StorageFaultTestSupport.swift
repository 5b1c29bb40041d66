import Foundation
import JSONRPC
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A tmpfs of a few megabytes mounted for one test (root, as CI runs), unmounted after.
final class SmallDisk {
    let path: String

    /// Nil where mounting is refused (not root, or no mount rights in this namespace).
    init?(megabytes: Int) {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("small-disk-\(UUID().uuidString)").path
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        guard mount("tmpfs", path, "tmpfs", 0, "size=\(megabytes)m,mode=0700") == 0 else {
            try? FileManager.default.removeItem(atPath: path)
            return nil
        }
    }

    deinit {
        umount2(path, Int32(MNT_DETACH))
        try? FileManager.default.removeItem(atPath: path)
    }

    static var canMount: Bool { SmallDisk(megabytes: 1) != nil }

    /// Writes a file until the disk refuses more.
    func fill(named name: String = "filler") {
        let descriptor = open(path + "/" + name, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        guard descriptor >= 0 else { return }
        defer { close(descriptor) }
        let block = [UInt8](repeating: 0xAB, count: 4096)
        while block.withUnsafeBytes({ write(descriptor, $0.baseAddress, $0.count) }) > 0 {}
    }

    func free(named name: String = "filler") {
        unlink(path + "/" + name)
    }
}

func reply(to id: JSONValue, from bridge: BridgeProcess) async -> JSONValue? {
    while let message = await bridge.client.next() {
        if message["id"] == id, message["method"] == nil { return message }
    }
    return nil
}

func call(
    _ bridge: BridgeProcess,
    _ id: JSONValue,
    _ method: String,
    _ params: JSONValue? = nil
) async -> JSONValue? {
    bridge.client.request(id, method, params)
    return await reply(to: id, from: bridge)
}

func configureParams(_ directory: String) -> JSONValue {
    ["apiKey": "pk_faults", "options": ["configSource": ["type": "embedded"], "dataDirectory": .string(directory)]]
}
