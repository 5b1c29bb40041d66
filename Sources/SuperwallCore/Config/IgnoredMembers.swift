import JSONText

/// Members of a config object that no decoder reads. SuperwallKit ignores them, and so does
/// the bridge, but a misspelt key is the likeliest mistake in a config written by hand (an
/// audience whose `expresion_cel` is ignored matches everyone), so each is reported as a
/// warning with the nearest key the object does read.
struct AnyMemberKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

/// The keys one config object reads: its decoder's coding keys, and the members SuperwallKit's
/// API sends that the bridge has no use for (`unread`), which are not typos.
protocol ConfigObjectKeys: CodingKey, CaseIterable, RawRepresentable<String> {
    static var unread: [String] { get }
    /// `names`, made once: every object of a config is checked against it (declared by each
    /// type as `static let nameSet = MemberNameSet(names)`; a protocol cannot store it).
    static var nameSet: MemberNameSet { get }
}

extension ConfigObjectKeys {
    static var unread: [String] { [] }
    static var names: [String] { allCases.map(\.rawValue) + unread }
}

extension Decoder {
    /// The longest unknown key a warning names whole.
    fileprivate static var longestNameShown: Int { 128 }

    /// Records, in the decode's log, each member of the object being decoded that `Keys`
    /// does not name.
    func noteIgnoredMembers<Keys: ConfigObjectKeys>(besides _: Keys.Type) {
        let unknown = unknownMemberNames(of: self, besides: Keys.nameSet)
        guard !unknown.isEmpty, let log = DroppedElementLog.of(self) else { return }
        for name in unknown {
            log.recordIgnored {
                // A name of megabytes is named by its start; nothing that long is a typo of a key.
                let isLong = name.utf8.count > Self.longestNameShown
                let shown = isLong ? String(name.prefix(Self.longestNameShown)) + "…" : name
                let path = ConfigDecodingError(
                    path: jsonPath(codingPath + [AnyMemberKey(stringValue: shown)]),
                    reason: ""
                ).under(log.pathPrefix).path
                let suggestion =
                    isLong
                    ? "" : NearestName.among(Keys.names, to: name).map { "; did you mean \"\($0)\"?" } ?? ""
                return ConfigProblem(path: path, message: "unknown key \"\(shown)\" is ignored\(suggestion)")
            }
        }
    }
}
