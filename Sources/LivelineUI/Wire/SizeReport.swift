import LivelineCore

/// Bytes of an encoded UI by region and by subtree (uncompressed JSON bytes).
public struct SizeReport: Sendable {
    /// One part of the root object: a region, `e` or `s`.
    public struct Part: Sendable, Hashable {
        /// The root key (`ls`, `isl_exp_c`, `e`, `s`, …).
        public var key: String
        /// Its JSON bytes.
        public var jsonBytes: Int
        /// Its bytes when brotli-compressed alone (a rough share of the compressed size).
        public var compressedAlone: Int
    }

    /// One element subtree.
    public struct Subtree: Sendable, Hashable {
        /// Where it is, e.g. `ls > VStack > HStack[1]`.
        public var path: String
        /// Its JSON bytes.
        public var jsonBytes: Int
    }

    /// The parts, in root order.
    public let parts: [Part]
    /// The largest subtrees below a region's root, largest first (at most 8).
    public let largestSubtrees: [Subtree]
    /// Totals.
    public let jsonBytes: Int, compressedBytes: Int, base64Bytes: Int

    /// Measures `encoded`.
    public init(_ encoded: EncodedUI) {
        jsonBytes = encoded.json.count
        compressedBytes = encoded.compressed.count
        base64Bytes = encoded.base64.utf8.count
        guard let root = try? JSONValue.parse(encoded.json).objectValue else {
            parts = []
            largestSubtrees = []
            return
        }
        var parts: [Part] = []
        var subtrees: [Subtree] = []
        for member in root where member.value.objectValue != nil || member.value.arrayValue != nil {
            let bytes = member.value.serialized()
            parts.append(Part(key: member.key, jsonBytes: bytes.count, compressedAlone: Brotli.compress(bytes).count))
            guard member.key != "s" else { continue }
            // Paths read like `ls:VStack > HStack[1] > Text[0]`, `isl_min:Gauge > currentValueLabel:Text`.
            func walk(_ node: JSONValue, parent: String?, label: String) {
                if let list = node.arrayValue {
                    for (i, item) in list.enumerated() { walk(item, parent: parent, label: label + "[\(i)]") }
                    return
                }
                guard let object = node.objectValue else { return }
                let name = object["$r"] != nil ? "$r" : WireReader.integer(object["t"]).flatMap(Component.init(typeID:))?.rawValue ?? "?"
                let here: String
                if let parent {
                    here = parent + " > " + label.replacingOccurrences(of: "#", with: name)
                    subtrees.append(Subtree(path: here, jsonBytes: node.serializedSize))
                } else {
                    here = label.replacingOccurrences(of: "#", with: name)
                }
                if let c = object["c"], c.stringValue == nil { walk(c, parent: here, label: "#") }
                for prop in object["p"]?.objectValue ?? JSONObject() where prop.value.objectValue?["t"] != nil || prop.value.arrayValue != nil {
                    walk(prop.value, parent: here, label: ShortNames.expand(prop.key) + ":#")
                }
            }
            walk(member.value, parent: nil, label: member.key + ":#")
        }
        self.parts = parts
        self.largestSubtrees = Array(subtrees.sorted { $0.jsonBytes > $1.jsonBytes }.prefix(8))
    }

    /// A few lines for people: bytes by region, then the largest subtrees.
    public var summary: String {
        var text = "Bytes by region (JSON / brotli alone): "
        text += parts.map { "\($0.key) \($0.jsonBytes)/\($0.compressedAlone)" }.joined(separator: ", ")
        if !largestSubtrees.isEmpty {
            text += "\nLargest subtrees (JSON bytes): "
            text += largestSubtrees.prefix(5).map { "\($0.path) \($0.jsonBytes)" }.joined(separator: "; ")
        }
        return text
    }
}
