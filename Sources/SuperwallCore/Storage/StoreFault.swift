import GRDB

/// Why the store's files could not be used.
public enum StoreFault: Error, CustomStringConvertible {
    /// The disk (or the process's file-size limit) has no room for what must be written.
    case full(String)
    /// The store was closed with its data directory, at the end of its session.
    case closed

    public var description: String {
        switch self {
        case .full(let reason): "no space left: \(reason)"
        case .closed: "the data directory was closed at the end of its session"
        }
    }

    /// Whether `error` says the disk, or the file-size limit, had no room.
    static func isFull(_ error: any Error) -> Bool {
        if case StoreFault.full = error { return true }
        if let error = error as? DatabaseError { return error.resultCode == .SQLITE_FULL }
        return false
    }
}
