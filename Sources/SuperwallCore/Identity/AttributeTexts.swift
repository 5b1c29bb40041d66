/// The user's attributes as JSON text, a member at a time in key order.
///
/// Every `setUserAttributes` carries all the attributes three times: in its answer, in the
/// `user_attributes` event it tracks, and in that event's delegate copy. Near the 10,000-member
/// bound that is a megabyte, which, written anew, would be most of what a one-key change costs.
/// Kept beside the attributes, only the members a change names are written; the rest is copied.
public struct AttributeTexts: Sendable {
    struct Member: Sendable {
        let key: String
        /// `"key":value`, objects inside with their keys in order.
        let text: [UInt8]
        /// Whether an event carries it: SuperwallKit drops nulls and arrays from events'
        /// parameters (`TrackedEvent.keepsCustomParameter`).
        let isEventParameter: Bool

        init(_ key: String, _ value: JSON) {
            self.key = key
            text = JSON.sortedMemberText(key, value)
            isEventParameter = TrackedEvent.keepsCustomParameter(key, value)
        }
    }

    /// In key order, as `JSON.sortedObjectText` orders them.
    private(set) var members: [Member]
    /// The bytes of every member's text, to size what is written from them.
    private var memberBytes: Int

    /// About the size of the object's text.
    var byteCount: Int { memberBytes + members.count + 2 }

    init(_ attributes: [String: JSON]) {
        members = attributes.keys.sorted().map { Member($0, attributes[$0]!) }
        memberBytes = members.reduce(0) { $0 + $1.text.count }
    }

    /// Rewrites the members named by `keys` as `attributes` has them now: changed, added, or
    /// removed when `attributes` no longer has them.
    mutating func update(_ keys: some Sequence<String>, from attributes: [String: JSON]) {
        for key in keys {
            let index = place(of: key)
            let isPresent = index < members.count && members[index].key == key
            if isPresent { memberBytes -= members[index].text.count }
            if let value = attributes[key] {
                let member = Member(key, value)
                memberBytes += member.text.count
                if isPresent { members[index] = member } else { members.insert(member, at: index) }
            } else if isPresent {
                members.remove(at: index)
            }
        }
    }

    /// Where `key` is, or would go.
    private func place(of key: String) -> Int {
        var low = 0
        var high = members.count
        while low < high {
            let middle = (low + high) / 2
            if members[middle].key < key { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// All the attributes as one object, keys in order.
    public var objectText: [UInt8] {
        sortedObjectText(eventParametersOnly: false)
    }

    /// An object of the attributes (only those an event carries, if `eventParametersOnly`),
    /// without the keys `leavingOut` names, merged in key order with `others`: an event's
    /// delegate parameters are its attributes beside the SDK's own.
    public func sortedObjectText(
        eventParametersOnly: Bool,
        leavingOut: (String) -> Bool = { _ in false },
        mergedWith others: [(key: String, value: JSON)] = []
    ) -> [UInt8] {
        let others = others.sorted { $0.key < $1.key }.map { Member($0.key, $0.value) }
        var bytes: [UInt8] = [UInt8(ascii: "{")]
        bytes.reserveCapacity(memberBytes + members.count + others.reduce(0) { $0 + $1.text.count + 1 } + 2)
        var next = others.startIndex
        func append(_ member: Member) {
            if bytes.count > 1 { bytes.append(UInt8(ascii: ",")) }
            bytes.append(contentsOf: member.text)
        }
        for member in members where (member.isEventParameter || !eventParametersOnly) && !leavingOut(member.key) {
            while next < others.endIndex, others[next].key < member.key {
                append(others[next])
                next += 1
            }
            append(member)
        }
        for member in others[next...] { append(member) }
        bytes.append(UInt8(ascii: "}"))
        return bytes
    }
}
