/// One SQL value: a bound parameter or a column of a result row, for every driver.
///
/// Literals work where a value is expected: `try db.run("INSERT INTO t VALUES ($1, $2, $3)", [1, "a", nil])`.
/// SQLite stores `.bool` as the integers 0 and 1 and never answers `.bool`; PostgreSQL answers
/// `.bool` for a `boolean` column and `.blob` for `bytea`.
public enum SQLValue: Sendable, Hashable {
    /// SQL `NULL`.
    case null
    /// A 64-bit signed integer (SQLite `INTEGER`, PostgreSQL `bigint`).
    case integer(Int64)
    /// An IEEE 754 double (SQLite `REAL`, PostgreSQL `double precision`). SQLite stores NaN as `NULL`.
    case real(Double)
    /// UTF-8 text. SQLite keeps NUL characters inside; PostgreSQL text cannot hold them.
    case text(String)
    /// Raw bytes (SQLite `BLOB`, PostgreSQL `bytea`); an empty array is a zero-length value, not `NULL`.
    case blob([UInt8])
    /// A boolean (PostgreSQL `boolean`; SQLite binds it as 0 or 1).
    case bool(Bool)

    /// `.text(s)`, or `.null` when `s` is nil.
    public static func from(_ s: String?) -> SQLValue { s.map { .text($0) } ?? .null }

    /// `.integer(i)`, or `.null` when `i` is nil.
    public static func from(_ i: Int?) -> SQLValue { i.map { .integer(Int64($0)) } ?? .null }

    /// `.real(d)`, or `.null` when `d` is nil.
    public static func from(_ d: Double?) -> SQLValue { d.map { .real($0) } ?? .null }

    /// `.blob(bytes)`: PostgreSQL's name for raw bytes.
    public static func bytea(_ bytes: [UInt8]) -> SQLValue { .blob(bytes) }

    /// Whether this is SQL `NULL`.
    public var isNull: Bool { self == .null }
}

extension SQLValue: ExpressibleByStringLiteral {
    public init(stringLiteral value: String) { self = .text(value) }
}

extension SQLValue: ExpressibleByIntegerLiteral {
    public init(integerLiteral value: Int64) { self = .integer(value) }
}

extension SQLValue: ExpressibleByFloatLiteral {
    public init(floatLiteral value: Double) { self = .real(value) }
}

extension SQLValue: ExpressibleByNilLiteral {
    public init(nilLiteral: ()) { self = .null }
}

extension SQLValue: ExpressibleByBooleanLiteral {
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}
