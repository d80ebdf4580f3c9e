#if canImport(Glibc)
import Glibc
#endif

/// Byte-level string helpers for the per-push path: they give exactly what the `String` methods
/// they stand in for give, without their Unicode machinery when the text is plain ASCII.
enum ASCII {
    /// `text.lowercased()`, returning `text` itself (no copy) when it has no upper-case or non-ASCII byte.
    static func lowercased(_ text: String) -> String {
        let plain = text.utf8.withContiguousStorageIfAvailable { bytes in
            for c in bytes where c >= 0x80 || (c >= UInt8(ascii: "A") && c <= UInt8(ascii: "Z")) { return false }
            return true
        }
        return plain == true ? text : text.lowercased()
    }

    /// Whether `a` and `b` hold the same UTF-8 bytes (stricter than `==`, which equates canonically
    /// equivalent text): what one-entry caches compare, so a hit gives exactly what a miss would.
    static func sameBytes(_ a: String, _ b: String) -> Bool {
        let x = a.utf8
        let y = b.utf8
        guard x.count == y.count else { return false }
        if x.isEmpty { return true }
        let fast = x.withContiguousStorageIfAvailable { p in
            y.withContiguousStorageIfAvailable { q in memcmp(p.baseAddress!, q.baseAddress!, p.count) == 0 }
        }
        if let fast, let result = fast { return result }
        return x.elementsEqual(y)
    }

    /// What a device token's bytes contain, found in one pass.
    struct TokenScan: Sendable {
        /// A `/` appears.
        var hasSlash = false
        /// Every byte is a hex digit (either case).
        var allHex = true
        /// Some byte is `A`–`F`.
        var hasUpper = false
    }

    /// Scans `token` once for the facts device-token validation needs.
    static func scan(token: String) -> TokenScan {
        func run(_ bytes: some Sequence<UInt8>) -> TokenScan {
            var r = TokenScan()
            for c in bytes {
                switch c {
                case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"): continue
                case UInt8(ascii: "A")...UInt8(ascii: "F"): r.hasUpper = true
                case UInt8(ascii: "/"):
                    r.hasSlash = true
                    r.allHex = false
                default: r.allHex = false
                }
            }
            return r
        }
        return token.utf8.withContiguousStorageIfAvailable { run($0) } ?? run(token.utf8)
    }
}
