import BridgeCommandLine

/// The executable's command line, run by the packages' launcher (embedding/launcher), so the
/// bridge's code ships once: in this library.
@_cdecl("superwall_bridge_main")
public func superwallBridgeMain(
    _ count: Int32,
    _ arguments: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
) -> Int32 {
    let arguments = (0..<Int(max(count, 0))).compactMap { index in arguments?[index].map { String(cString: $0) } }
    BridgeCommand.main(arguments: arguments)
    return 0
}
