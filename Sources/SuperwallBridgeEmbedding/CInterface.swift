import BridgeServer
#if canImport(Glibc)
import Glibc
#endif

// The C interface declared in embedding/include/superwall_bridge.h. Nothing here may trap on
// what a host passes: every misuse the header names is answered with a code or a message.

public typealias SuperwallBridgeOutput = @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?, Int) -> Void

@_cdecl("superwall_bridge_open")
public func superwallBridgeOpen(
    _ optionsJSON: UnsafePointer<CChar>?,
    _ output: SuperwallBridgeOutput?,
    _ context: UnsafeMutableRawPointer?,
    _ error: UnsafeMutablePointer<CChar>?,
    _ errorCapacity: Int
) -> UnsafeMutableRawPointer? {
    func fail(_ message: String) -> UnsafeMutableRawPointer? {
        if let error, errorCapacity > 0 {
            let bytes = Array(message.utf8.prefix(errorCapacity - 1))
            for (index, byte) in bytes.enumerated() { error[index] = CChar(bitPattern: byte) }
            error[bytes.count] = 0
        }
        return nil
    }
    let options: ServingSettings
    do {
        options = try ServingSettings(
            json: optionsJSON.map { Array(UnsafeRawBufferPointer(start: $0, count: strlen($0))) }
        )
    } catch {
        return fail("superwall_bridge_open: \(error)")
    }
    do {
        let bridge = try EmbeddedBridge(
            options: options,
            output: output.map { .callback(.init(function: $0, context: context)) } ?? .mailbox
        )
        return Unmanaged.passRetained(BridgeHandle(bridge)).toOpaque()
    } catch {
        return fail("superwall_bridge_open: \(error)")
    }
}

@_cdecl("superwall_bridge_send")
public func superwallBridgeSend(
    _ bridge: UnsafeMutableRawPointer?,
    _ message: UnsafePointer<CChar>?,
    _ length: Int
)
    -> Int32
{
    guard let bridge, let message else { return BridgeCode.invalidArgument.rawValue }
    guard let embedded = Unmanaged<BridgeHandle>.fromOpaque(bridge).takeUnretainedValue().open else {
        return BridgeCode.ended.rawValue
    }
    // A size_t past Int.max arrives negative.
    guard length >= 0 else { return BridgeCode.tooLarge.rawValue }
    return embedded.send(UnsafeRawBufferPointer(start: message, count: length)).rawValue
}

@_cdecl("superwall_bridge_close")
public func superwallBridgeClose(_ bridge: UnsafeMutableRawPointer?) -> Int32 {
    guard let bridge else { return -1 }
    let handle = Unmanaged<BridgeHandle>.fromOpaque(bridge).takeUnretainedValue()
    // Closing from the bridge's own callback would wait for the thread it runs on.
    guard let embedded = handle.open, !embedded.isCallingBack else { return -1 }
    // Of two closes at once, one takes the bridge and closes it; the other has nothing to do.
    guard handle.take() != nil else { return -1 }
    let status = embedded.close()
    // A bridge left running keeps its memory: its thread still uses it.
    if status == EmbeddedBridge.abandoned { _ = Unmanaged.passRetained(embedded) }
    return status
}

@_cdecl("superwall_bridge_receive")
public func superwallBridgeReceive(
    _ bridge: UnsafeMutableRawPointer?,
    _ timeoutMilliseconds: Int32,
    _ message: UnsafeMutablePointer<UnsafePointer<CChar>?>?,
    _ length: UnsafeMutablePointer<Int>?
) -> Int32 {
    message?.pointee = nil
    length?.pointee = 0
    guard let bridge, let message, let length, timeoutMilliseconds >= 0 else {
        return BridgeCode.invalidArgument.rawValue
    }
    let handle = Unmanaged<BridgeHandle>.fromOpaque(bridge).takeUnretainedValue()
    guard let embedded = handle.open else { return BridgeCode.ended.rawValue }
    guard let mailbox = embedded.mailbox else { return BridgeCode.invalidArgument.rawValue }
    do {
        switch try mailbox.receive(timeout: .milliseconds(timeoutMilliseconds)) {
        case .message(let bytes):
            message.pointee = bytes.baseAddress
            length.pointee = bytes.count
            return BridgeCode.taken.rawValue
        case .timedOut:
            return BridgeCode.timedOut.rawValue
        case .ended:
            return BridgeCode.ended.rawValue
        }
    } catch {
        return BridgeCode.busy.rawValue
    }
}
