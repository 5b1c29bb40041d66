/// What the C interface's functions return: the `SUPERWALL_BRIDGE_*` codes of
/// superwall_bridge.h, one list for the header, this module, the Java class and the Python
/// client (a test holds them equal).
enum BridgeCode: Int32 {
    /// A message was taken (send) or received (receive).
    case taken = 0
    /// The bridge has ended, or was closed, or belongs to the parent of this forked process.
    case ended = 1
    case invalidArgument = 2
    /// Longer than `maxMessageSize`; not taken.
    case tooLarge = 3
    /// Nothing arrived within a receive's timeout.
    case timedOut = 4
    /// Another thread is receiving from the bridge.
    case busy = 5
}
