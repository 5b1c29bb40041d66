import Foundation
import JSONText

extension Config {
    /// The text of a config cut down to what one placement can reach: of the triggers, those
    /// named `placement`; of the paywalls, those their variants name; every other member as
    /// written. Explaining one placement of a config of thousands of campaigns needs no more,
    /// and decoding the rest would be most of the time it takes (`superwall-bridge explain`).
    ///
    /// Elements are picked by their text, without decoding them: a name written with escapes
    /// is kept in case it is the one. Nothing is checked here; decoding the result checks what
    /// is left.
    public static func narrowedText(_ data: Data, toPlacement placement: String) throws(ConfigDecodingError) -> Data {
        try data.withUnsafeBytes { bytes in
            Result { () throws(ConfigDecodingError) -> Data in
                let text = try ConfigText(bytes)
                let scanner = JSONTextScanner(bytes: bytes)
                var triggers: [Range<Int>] = []
                if let member = text.member("trigger_options"),
                    let elements = try? ConfigText.elements(of: member.value, in: bytes, path: "")
                {
                    triggers = elements.filter {
                        Self.names(
                            scanner.memberText(named: "event_name", inObjectAt: $0.lowerBound),
                            oneOf: [placement]
                        )
                    }
                }
                let paywalls = Set(
                    triggers.flatMap { Self.paywallIdentifiers(in: Data(UnsafeRawBufferPointer(rebasing: bytes[$0]))) }
                )
                var narrowed = Data("{".utf8)
                for member in text.members {
                    if narrowed.count > 1 { narrowed.append(UInt8(ascii: ",")) }
                    narrowed.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[member.rawKey]))
                    narrowed.append(UInt8(ascii: ":"))
                    let kept: [Range<Int>]
                    switch member.key {
                    case "trigger_options":
                        kept = triggers
                    case "paywall_responses":
                        guard let elements = try? ConfigText.elements(of: member.value, in: bytes, path: "") else {
                            fallthrough
                        }
                        kept = elements.filter {
                            Self.names(
                                scanner.memberText(named: "identifier", inObjectAt: $0.lowerBound),
                                oneOf: paywalls
                            )
                        }
                    default:
                        narrowed.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[member.value]))
                        continue
                    }
                    narrowed.append(UInt8(ascii: "["))
                    for (index, element) in kept.enumerated() {
                        if index > 0 { narrowed.append(UInt8(ascii: ",")) }
                        narrowed.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[element]))
                    }
                    narrowed.append(UInt8(ascii: "]"))
                }
                narrowed.append(UInt8(ascii: "}"))
                return narrowed
            }
        }.get()
    }

    /// Whether a member's text (a JSON string) is one of `names`, or may be (it has escapes).
    /// The placements a config's text names (`trigger_options[].event_name`), read as the
    /// narrowing reads them, without decoding: for "did you mean" when a placement is not there.
    public static func placementNames(in data: Data) -> [String] {
        data.withUnsafeBytes { bytes in
            guard let text = try? ConfigText(bytes), let member = text.member("trigger_options"),
                let elements = try? ConfigText.elements(of: member.value, in: bytes, path: "")
            else { return [] }
            let scanner = JSONTextScanner(bytes: bytes)
            return elements.compactMap { element in
                guard let name = scanner.memberText(named: "event_name", inObjectAt: element.lowerBound),
                    name.count >= 2
                else { return nil }
                return String(decoding: name.dropFirst().dropLast(), as: UTF8.self)
            }
        }
    }

    private static func names(_ text: ArraySlice<UInt8>?, oneOf names: Set<String>) -> Bool {
        guard let text, text.count >= 2, text.first == UInt8(ascii: "\""), text.last == UInt8(ascii: "\"") else {
            return false
        }
        let inner = text.dropFirst().dropLast()
        if inner.contains(UInt8(ascii: "\\")) { return true }
        return names.contains(String(decoding: inner, as: UTF8.self))
    }

    /// The paywall identifiers a trigger's variants name.
    private static func paywallIdentifiers(in trigger: Data) -> [String] {
        guard let object = try? JSONSerialization.jsonObject(with: trigger) as? [String: Any],
            let rules = object["rules"] as? [[String: Any]]
        else { return [] }
        return rules.flatMap {
            ($0["variants"] as? [[String: Any]] ?? []).compactMap { $0["paywall_identifier"] as? String }
        }
    }
}
