/// The checks a request head must pass before anything reads its body or routes it: the framing
/// rules that keep this server and any proxy in front of it reading the same requests
/// (RFC 9112 §6.3, §5.1) and the path rules that keep the router seeing what the client sent.
/// Pure logic over bytes; `ServerCore` gathers them from libmicrohttpd and answers a refusal with
/// 400 and `Connection: close`.
///
/// libmicrohttpd 0.9.75 (Debian 12) checks none of these itself except a `Content-Length` that is
/// not a number (its `MHD_OPTION_STRICT_FOR_CLIENT` refuses a missing `Host` at 1 and whitespace
/// before a colon at -1, never both, and its NUL and bare-LF checks came in 0.9.77).
struct RequestFraming {
    /// The request target exactly as it came: path, then `?` and the query if any.
    var rawTarget: [UInt8]
    /// `HTTP/1.1`, `HTTP/1.0`.
    var version: String
    /// Whether libmicrohttpd's C strings account for every byte of the head: false when a NUL
    /// byte cut a line short, a line ended in a bare LF, a header line was folded, or the request
    /// line had more than one space between its parts.
    var layoutIntact: Bool
    /// The header fields in order: where each name and value is, and their lengths (valid while
    /// libmicrohttpd holds the head: during the access handler's first call).
    var headers: [MHDCallbacks.RawField]

    /// Why the head is refused (a sentence for the 400's message), or nil when it is sound.
    func refusal() -> String? {
        if !layoutIntact {
            return "the request head contains a NUL byte, a line ending in a bare LF, a folded header line or extra spaces in the request line"
        }
        if let problem = Self.targetProblem(rawTarget) { return problem }
        var contentLengths = 0
        var transferEncodings: [[UInt8]] = []
        var hosts = 0
        for field in headers {
            let name = field.nameBuffer, value = field.valueBuffer
            if name.isEmpty { return "a header line has no name before its colon" }
            if name.contains(where: { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }) {
                return "a header name is followed by whitespace before its colon"
            }
            if !name.allSatisfy(Self.isTokenByte) { return "a header name contains a character that is not allowed in a token" }
            if value.contains(where: Self.isForbiddenInValue) { return "a header value contains a control character" }
            if Self.equalsIgnoringCase(name, "content-length") {
                contentLengths += 1
                if value.isEmpty || !value.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
                    return "Content-Length must be one decimal number"
                }
            } else if Self.equalsIgnoringCase(name, "transfer-encoding") {
                transferEncodings.append(Array(value))
            } else if Self.equalsIgnoringCase(name, "host") {
                hosts += 1
            }
        }
        if contentLengths > 1 { return "the request has more than one Content-Length" }
        if !transferEncodings.isEmpty {
            if contentLengths > 0 { return "the request has both Content-Length and Transfer-Encoding" }
            if transferEncodings.count > 1 || !Self.equalsIgnoringCase(transferEncodings[0], "chunked") {
                return "the only Transfer-Encoding accepted is a single chunked"
            }
            if version == "HTTP/1.0" { return "Transfer-Encoding is not allowed in an HTTP/1.0 request" }
        }
        if hosts > 1 { return "the request has more than one Host" }
        if hosts == 0 && version == "HTTP/1.1" { return "an HTTP/1.1 request must have a Host header" }
        return nil
    }

    /// The path part of `rawTarget` with percent-escapes decoded, as the handler sees it; nil when
    /// `targetProblem` would refuse it.
    static func decodedPath(_ rawTarget: [UInt8]) -> String? {
        let rawPath = rawTarget.prefix { $0 != UInt8(ascii: "?") }
        if isPlain(rawTarget) { return String(decoding: rawPath, as: UTF8.self) }
        guard targetProblem(rawTarget) == nil else { return nil }
        return String(validating: percentDecoded(rawPath) ?? [], as: UTF8.self)
    }

    /// Printable ASCII without `%` (most targets): nothing to refuse and nothing to decode.
    static func isPlain(_ rawTarget: [UInt8]) -> Bool {
        rawTarget.allSatisfy { $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "%") }
    }

    /// What is wrong with a request target: raw control characters or spaces, a malformed or
    /// forbidden percent-escape in the path (`%00` and the other controls, `%2F`), or a path that
    /// is not UTF-8 once decoded.
    static func targetProblem(_ rawTarget: [UInt8]) -> String? {
        if isPlain(rawTarget) { return nil }
        if rawTarget.contains(where: { $0 <= 0x20 || $0 == 0x7F }) {
            return "the request target contains a space or a control character"
        }
        let rawPath = rawTarget.prefix { $0 != UInt8(ascii: "?") }
        guard let decoded = percentDecoded(rawPath) else {
            return "the path contains a % that does not begin a two-digit hexadecimal escape"
        }
        var index = rawPath.startIndex
        while let percent = rawPath[index...].firstIndex(of: UInt8(ascii: "%")) {
            let high = hexValue(rawPath[percent + 1])!, low = hexValue(rawPath[percent + 2])!
            let byte = high << 4 | low
            if byte < 0x20 || byte == 0x7F { return "the path contains an encoded control character (such as %00)" }
            if byte == UInt8(ascii: "/") { return "the path contains an encoded slash (%2F), which this server does not accept inside a path segment" }
            index = percent + 3
        }
        if String(validating: decoded, as: UTF8.self) == nil { return "the path is not UTF-8 once its percent-escapes are decoded" }
        return nil
    }

    /// `bytes` with `%XX` decoded; nil when a `%` is not followed by two hexadecimal digits.
    static func percentDecoded<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> [UInt8]? where Bytes.Index == Int {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            guard byte == UInt8(ascii: "%") else {
                out.append(byte)
                index += 1
                continue
            }
            guard index + 2 < bytes.endIndex, let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2]) else { return nil }
            out.append(high << 4 | low)
            index += 3
        }
        return out
    }

    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    /// RFC 9110 §5.6.2 `tchar`.
    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "*"),
             UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }

    /// Controls other than horizontal tab (RFC 9110 §5.5: NUL, CR and LF never; others are refused too).
    static func isForbiddenInValue(_ byte: UInt8) -> Bool {
        (byte < 0x20 && byte != UInt8(ascii: "\t")) || byte == 0x7F
    }

    static func equalsIgnoringCase(_ bytes: some Collection<UInt8>, _ lowercase: StaticString) -> Bool {
        bytes.count == lowercase.utf8CodeUnitCount
            && zip(bytes, UnsafeBufferPointer(start: lowercase.utf8Start, count: lowercase.utf8CodeUnitCount)).allSatisfy { asciiLower($0) == $1 }
    }
}
