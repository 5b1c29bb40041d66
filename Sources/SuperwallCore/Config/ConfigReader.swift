import Foundation
import JSONText

/// Reads a static config's text once, front to back (`JSONStream`): each element of the three
/// large arrays is checked, indexed and decoded on its own and its index let go, and every
/// other member is kept as text for the small header object decoded at the end. The text is
/// read once and never indexed whole, so a config of megabytes costs the memory of its
/// largest paywall on top of its text and what it decodes into.
///
/// Faults are reported in SuperwallKit's order whatever the text's order: text that is not
/// JSON first (wherever it is), then the build id, the placements, the paywalls and the
/// other members. A placement or paywall after the first one that fails is still checked as
/// JSON but not decoded.
struct ConfigReader {
    /// The large arrays, by their keys.
    private enum LargeArray: String {
        case triggers = "trigger_options"
        case paywalls = "paywall_responses"
        case products = "products_v3"
    }

    private let previous: Config?
    private let platform: ReferenceSDK
    private var triggers: Section<Trigger>
    private var paywalls: Section<Paywall>
    private var products: Section<Product>
    /// An object of every other member, as written.
    private var header: [UInt8] = [UInt8(ascii: "{")]
    /// The other members' names, for a required key that is missing because it is misspelt.
    private var headerNames: [String] = []

    init(reusing previous: Config?, for platform: ReferenceSDK) {
        self.previous = previous
        self.platform = platform
        triggers = Section(key: LargeArray.triggers.rawValue, for: platform)
        paywalls = Section(key: LargeArray.paywalls.rawValue, for: platform)
        products = Section(key: LargeArray.products.rawValue, for: platform)
    }

    /// What a large array's key holds.
    private enum Found { case missing, null, notAnArray, array }

    /// One of the large arrays: what was found under its key and what it decoded into.
    private struct Section<Element: Decodable> {
        let key: String
        var found = Found.missing
        var elements: [Element] = []
        /// Where each element decoded or reused is in `elements`, by a digest of its text.
        var positions: [TextDigest: Int] = [:]
        var reused = 0
        /// The first element that failed to decode.
        var fault: ConfigDecodingError?
        let dropped = DroppedElementLog()
        /// A decoder that records drops in `dropped`.
        let decoder: JSONTextDecoder

        init(key: String, for platform: ReferenceSDK) {
            self.key = key
            var decoder = JSONTextDecoder()
            decoder.userInfo[DroppedElementLog.key] = dropped
            decoder.userInfo[ReferenceSDK.key] = platform
            self.decoder = decoder
        }

        /// The elements, or why the array is not there, as SuperwallKit reports it.
        func decoded() throws(ConfigDecodingError) -> [Element] {
            switch found {
            case .missing: throw ConfigDecodingError(path: "$.\(key)", reason: ConfigDecodingError.missingReason)
            case .null: throw ConfigDecodingError(path: "$.\(key)", reason: "expected an array, found null")
            case .notAnArray: throw ConfigDecodingError(path: "$.\(key)", reason: "expected an array")
            case .array:
                if let fault { throw fault }
                return elements
            }
        }

        /// Decodes an element, or takes it from `known` when its text is the same as one
        /// `known` decoded. An element that dropped something is not listed for reuse, so
        /// every drop is reported again.
        mutating func add(
            _ document: JSONDocument,
            text: UnsafeRawBufferPointer,
            index: Int,
            reusing known: (elements: [Element], positions: [TextDigest: Int])?
        ) {
            guard fault == nil else { return }
            let digest = TextDigest(text)
            if let position = known?.positions[digest], let knownElements = known?.elements,
                position < knownElements.count
            {
                elements.append(knownElements[position])
                reused += 1
                positions[digest] = elements.count - 1
                return
            }
            let path = "$.\(key)[\(index)]"
            dropped.pathPrefix = path
            let drops = dropped.count
            do {
                elements.append(try decoder.decode(Element.self, from: document))
            } catch {
                fault = ConfigDecodingError(decoding: error).under(path)
                return
            }
            if dropped.count == drops { positions[digest] = elements.count - 1 }
        }
    }

    mutating func read(_ bytes: UnsafeRawBufferPointer) throws -> Config {
        var stream = try JSONStream(bytes)
        guard stream.nextKind == .object else { throw ConfigDecodingError(path: "$", reason: "expected an object") }
        try stream.open(.object)
        while let name = try stream.nextMember() {
            // Of a key written twice, the last is read, as the header's decoder and the
            // JSON-RPC side read it.
            guard let key = LargeArray(rawValue: name) else {
                headerNames.append(name)
                let name = UnsafeRawBufferPointer(rebasing: bytes[stream.memberNameText])
                try stream.readValue { _, range in appendToHeader(name, UnsafeRawBufferPointer(rebasing: bytes[range]))
                }
                continue
            }
            forget(key)
            switch stream.nextKind {
            case .array:
                try readElements(of: key, from: &stream, in: bytes)
                mark(.array, for: key)
            case .null:
                try stream.skipValue()
                mark(.null, for: key)
            default:
                try stream.skipValue()
                mark(.notAnArray, for: key)
            }
        }
        try stream.finish()
        header.append(UInt8(ascii: "}"))
        return try assemble()
    }

    private mutating func readElements(
        of key: LargeArray,
        from stream: inout JSONStream,
        in bytes: UnsafeRawBufferPointer
    ) throws {
        try stream.open(.array)
        var index = 0
        while try stream.nextElement() {
            try stream.readValue { document, range in
                let text = UnsafeRawBufferPointer(rebasing: bytes[range])
                switch key {
                case .triggers:
                    triggers.add(
                        document,
                        text: text,
                        index: index,
                        reusing: previous.map { ($0.triggers, $0.decodedText.triggers) }
                    )
                case .paywalls:
                    paywalls.add(
                        document,
                        text: text,
                        index: index,
                        reusing: previous.map { ($0.paywalls, $0.decodedText.paywalls) }
                    )
                case .products:
                    addProduct(document, index: index)
                }
            }
            index += 1
        }
    }

    /// A catalogue product that does not decode is dropped on its own, as SuperwallKit's
    /// lossy array drops it.
    private mutating func addProduct(_ document: JSONDocument, index: Int) {
        let path = "$.\(products.key)[\(index)]"
        products.dropped.pathPrefix = path
        do {
            products.elements.append(try products.decoder.decode(Product.self, from: document))
        } catch {
            products.dropped.record(
                ConfigProblem(path: path, message: "dropped: \(ConfigDecodingError(decoding: error).under(path))")
            )
        }
    }

    /// Drops what an earlier member of the same name read.
    private mutating func forget(_ key: LargeArray) {
        switch key {
        case .triggers: triggers = Section(key: triggers.key, for: platform)
        case .paywalls: paywalls = Section(key: paywalls.key, for: platform)
        case .products: products = Section(key: products.key, for: platform)
        }
    }

    private mutating func mark(_ found: Found, for key: LargeArray) {
        switch key {
        case .triggers: triggers.found = found
        case .paywalls: paywalls.found = found
        case .products: products.found = found
        }
    }

    private mutating func appendToHeader(_ name: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) {
        if header.count > 1 { header.append(UInt8(ascii: ",")) }
        header.append(contentsOf: name)
        header.append(UInt8(ascii: ":"))
        header.append(contentsOf: value)
    }

    /// The config, or its first fault in SuperwallKit's order. A required top-level key that
    /// is missing names the member most likely meant for it.
    private func assemble() throws(ConfigDecodingError) -> Config {
        do {
            return try assembleInOrder()
        } catch {
            throw error.suggestingTopLevelKey(among: headerNames)
        }
    }

    private func assembleInOrder() throws(ConfigDecodingError) -> Config {
        let decoder = JSONTextDecoder()
        let _: ConfigHeader.BuildId = try decodeHeader(with: decoder)
        let triggers = try triggers.decoded()
        let paywalls = try paywalls.decoded()
        var headerDecoder = JSONTextDecoder()
        let headerLog = DroppedElementLog()
        headerDecoder.userInfo[DroppedElementLog.key] = headerLog
        headerDecoder.userInfo[ReferenceSDK.key] = platform
        let header: ConfigHeader = try decodeHeader(with: headerDecoder)
        // A missing or null `products_v3` is no products, as SuperwallKit's lossy array reads it.
        let products = products.found == .missing || products.found == .null ? [] : try products.decoded()
        var config = Config(header: header, triggers: triggers, paywalls: paywalls, products: products)
        config.droppedElements =
            self.triggers.dropped.elements + self.paywalls.dropped.elements + self.products.dropped.elements
        config.ignoredMembers = DroppedElementLog.ignoredMembers(
            of: [headerLog, self.triggers.dropped, self.paywalls.dropped, self.products.dropped]
        )
        config.decodedText = DecodedText(
            triggers: self.triggers.positions,
            paywalls: self.paywalls.positions,
            reused: self.triggers.reused + self.paywalls.reused
        )
        return config
    }

    private func decodeHeader<Part: Decodable>(with decoder: JSONTextDecoder) throws(ConfigDecodingError) -> Part {
        do {
            return try decoder.decode(Part.self, from: header)
        } catch {
            throw ConfigDecodingError(decoding: error)
        }
    }
}

extension ConfigDecodingError {
    /// The error of a part that did not decode, with its path from the part's root.
    init(decoding error: any Error) {
        if let error = error as? DecodingError {
            self.init(error)
        } else {
            self.init(path: "$", reason: String(describing: error))
        }
    }
}
