import LivelineSQL

/// PostgreSQL's name for LivelineSQL's one value type (`SQLValue`): a bound parameter or a column.
///
/// Parameters go to the server in text format (bytea in binary), with a declared type for
/// integers, doubles, booleans and bytea, and none for text (the server infers it from where the
/// parameter stands). Result columns come back in text format and are converted by column type:
/// `int2`/`int4`/`int8`/`oid` to `.integer`, `float4`/`float8`/`numeric` to `.real`, `bool` to
/// `.bool`, `bytea` to `.blob`, everything else to `.text`.
public typealias PostgresValue = SQLValue
/// PostgreSQL's name for LivelineSQL's one row type (`SQLRow`).
public typealias PostgresRow = SQLRow
/// PostgreSQL's name for LivelineSQL's one migration type (`SQLMigration`).
public typealias PostgresMigration = SQLMigration

extension SQLValue {
    /// An array literal (`{"a","b",NULL}`) for a `$n::text[]` parameter; nil elements are NULL.
    public static func textArray(_ elements: [String?]) -> SQLValue {
        var out = "{"
        for (i, element) in elements.enumerated() {
            if i > 0 { out += "," }
            guard let element else { out += "NULL"; continue }
            out += "\""
            for c in element.unicodeScalars {
                if c == "\"" || c == "\\" { out.unicodeScalars.append("\\") }
                out.unicodeScalars.append(c)
            }
            out += "\""
        }
        return .text(out + "}")
    }

    /// An array literal for a `$n::bigint[]` parameter; nil elements are NULL.
    public static func integerArray(_ elements: [Int64?]) -> SQLValue {
        .text("{" + elements.map { $0.map { String($0) } ?? "NULL" }.joined(separator: ",") + "}")
    }

    /// An array literal for a `$n::float8[]` parameter (exact, like `.real`); nil elements are NULL.
    public static func realArray(_ elements: [Double?]) -> SQLValue {
        .text("{" + elements.map { $0.map { text(of: $0) } ?? "NULL" }.joined(separator: ",") + "}")
    }

    /// The type the parameter is declared with (0: let the server infer it), and its format (1: binary).
    var parameterType: (oid: UInt32, binary: Bool) {
        switch self {
        case .null, .text: return (0, false)
        case .integer: return (PostgresType.int8, false)
        case .real: return (PostgresType.float8, false)
        case .bool: return (PostgresType.bool, false)
        case .blob: return (PostgresType.bytea, true)
        }
    }

    /// The parameter's bytes as sent (text format, bytea raw); nil for `NULL`.
    var parameterBytes: [UInt8]? {
        switch self {
        case .null: return nil
        case .integer(let i): return Array(String(i).utf8)
        case .real(let d): return Array(Self.text(of: d).utf8)
        case .text(let s): return Array(s.utf8)
        case .blob(let b): return b
        case .bool(let b): return Array((b ? "t" : "f").utf8)
        }
    }

    /// A double as PostgreSQL's `float8in` reads it (Swift's shortest round-trip form).
    static func text(of d: Double) -> String {
        if d.isNaN { return "NaN" }
        if d.isInfinite { return d < 0 ? "-Infinity" : "Infinity" }
        return String(d)
    }

    /// Converts a column's text to a value by the column's type.
    static func decode(text: UnsafePointer<CChar>, length: Int, type: UInt32) -> SQLValue {
        let bytes = UnsafeRawBufferPointer(start: text, count: length)
        switch type {
        case PostgresType.int2, PostgresType.int4, PostgresType.int8, PostgresType.oid:
            let s = String(decoding: bytes, as: UTF8.self)
            return Int64(s).map(SQLValue.integer) ?? .text(s)
        case PostgresType.float4, PostgresType.float8, PostgresType.numeric:
            let s = String(decoding: bytes, as: UTF8.self)
            switch s {
            case "NaN": return .real(.nan)
            case "Infinity": return .real(.infinity)
            case "-Infinity": return .real(-.infinity)
            default: return Double(s).map(SQLValue.real) ?? .text(s)
            }
        case PostgresType.bool:
            return .bool(length > 0 && bytes[0] == UInt8(ascii: "t"))
        case PostgresType.bytea:
            return .blob(decodeHexBytea(bytes) ?? Array(bytes))
        default:
            return .text(String(decoding: bytes, as: UTF8.self))
        }
    }

    /// bytea's text output in hex format (`\x0a1b…`, the default since PostgreSQL 9.0).
    static func decodeHexBytea(_ text: UnsafeRawBufferPointer) -> [UInt8]? {
        guard text.count >= 2, text[0] == UInt8(ascii: "\\"), text[1] == UInt8(ascii: "x"), text.count % 2 == 0 else { return nil }
        func nibble(_ c: UInt8) -> UInt8? {
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
            default: return nil
            }
        }
        var out: [UInt8] = []
        out.reserveCapacity((text.count - 2) / 2)
        var i = 2
        while i < text.count {
            guard let hi = nibble(text[i]), let lo = nibble(text[i + 1]) else { return nil }
            out.append(hi << 4 | lo)
            i += 2
        }
        return out
    }
}

/// The type OIDs the wrapper converts (`pg_type.oid`; fixed in every PostgreSQL since 7.x).
enum PostgresType {
    static let bool: UInt32 = 16
    static let bytea: UInt32 = 17
    static let int8: UInt32 = 20
    static let int2: UInt32 = 21
    static let int4: UInt32 = 23
    static let oid: UInt32 = 26
    static let float4: UInt32 = 700
    static let float8: UInt32 = 701
    static let numeric: UInt32 = 1700
}
