/// A request in the corpus's text form, shared by the simulator and service targets:
///
/// ```
/// POST /3/device/$TOKEN
/// authorization: bearer $JWT
/// apns-topic: com.example.flights
///
/// {"aps":{"alert":"hi"}}
/// ```
/// The first line is the method and the path (a `?query` for the service), then `name: value`
/// headers up to an empty line, then the body. `$NAME` placeholders in the whole text are replaced
/// by values made at run time (a signed JWT, a device token, an API key), so the corpus holds no
/// secret and inputs still reach past authentication.
struct FuzzRequest {
    var method = ""
    var path = ""
    var headers: [(name: String, value: String)] = []
    var body: [UInt8] = []

    init(_ input: [UInt8], replacing placeholders: [(String, String)]) {
        var bytes = input
        for (name, value) in placeholders { bytes = Self.replace(Array(name.utf8), with: Array(value.utf8), in: bytes) }
        let split = Self.firstIndex(of: [0x0A, 0x0A], in: bytes) ?? bytes.count
        body = split + 2 <= bytes.count ? Array(bytes[(split + 2)...]) : []
        let head = String(decoding: bytes[..<split], as: UTF8.self)
        var lines = head.split(separator: "\n", omittingEmptySubsequences: false).makeIterator()
        if let first = lines.next() {
            let parts = first.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: false)
            method = String(parts[0])
            path = parts.count > 1 ? String(parts[1]) : ""
        }
        while let line = lines.next() {
            guard let colon = line.firstIndex(of: ":") else { headers.append((String(line), "")); continue }
            let value = line[line.index(after: colon)...].drop { $0 == " " }
            headers.append((String(line[..<colon]), String(value)))
        }
    }

    static func firstIndex(of needle: [UInt8], in bytes: [UInt8]) -> Int? {
        guard !needle.isEmpty, bytes.count >= needle.count else { return nil }
        for i in 0...(bytes.count - needle.count) where bytes[i] == needle[0] && Array(bytes[i..<(i + needle.count)]) == needle { return i }
        return nil
    }

    static func replace(_ needle: [UInt8], with replacement: [UInt8], in bytes: [UInt8]) -> [UInt8] {
        guard bytes.count >= needle.count, firstIndex(of: needle, in: bytes) != nil else { return bytes }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = 0
        while i < bytes.count {
            if i + needle.count <= bytes.count, bytes[i] == needle[0], Array(bytes[i..<(i + needle.count)]) == needle {
                out += replacement
                i += needle.count
            } else {
                out.append(bytes[i])
                i += 1
            }
        }
        return out
    }
}
