/// One SQLite value: a bound parameter or a column of a result row.
///
/// Literals work where a value is expected: `try db.run("INSERT INTO t VALUES (?, ?, ?)", [1, "a", nil])`.
public enum SQLiteValue: Sendable, Hashable {
    /// SQL `NULL`.
    case null
    /// A 64-bit signed integer (`INTEGER` storage class).
    case integer(Int64)
    /// An IEEE 754 double (`REAL` storage class). SQLite stores NaN as `NULL`.
    case real(Double)
    /// UTF-8 text (`TEXT` storage class); NUL characters inside are kept.
    case text(String)
    /// Raw bytes (`BLOB` storage class); an empty array is a zero-length blob, not `NULL`.
    case blob([UInt8])

    /// `.text(s)`, or `.null` when `s` is nil.
    public static func from(_ s: String?) -> SQLiteValue { s.map { .text($0) } ?? .null }

    /// `.integer(i)`, or `.null` when `i` is nil.
    public static func from(_ i: Int?) -> SQLiteValue { i.map { .integer(Int64($0)) } ?? .null }

    /// `.real(d)`, or `.null` when `d` is nil.
    public static func from(_ d: Double?) -> SQLiteValue { d.map { .real($0) } ?? .null }

    /// Whether this is SQL `NULL`.
    public var isNull: Bool { self == .null }
}

extension SQLiteValue: ExpressibleByStringLiteral {
    public init(stringLiteral value: String) { self = .text(value) }
}

extension SQLiteValue: ExpressibleByIntegerLiteral {
    public init(integerLiteral value: Int64) { self = .integer(value) }
}

extension SQLiteValue: ExpressibleByFloatLiteral {
    public init(floatLiteral value: Double) { self = .real(value) }
}

extension SQLiteValue: ExpressibleByNilLiteral {
    public init(nilLiteral: ()) { self = .null }
}
