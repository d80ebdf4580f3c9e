/// One row of a query result: values by column name, for every driver.
///
/// Column names are matched exactly first, then ignoring ASCII case (SQL's rule for unquoted
/// identifiers). When a result has two columns of the same name (a join), the first one wins;
/// give them distinct names with `AS`.
public struct SQLRow: Sendable {
    /// The result's column names, shared by all its rows.
    public let layout: SQLColumns
    /// The values, in column order.
    public let values: [SQLValue]

    /// A row of `values` under `layout` (drivers make rows; `values.count` is the column count).
    public init(layout: SQLColumns, values: [SQLValue]) {
        self.layout = layout
        self.values = values
    }

    /// The value of `column`, or `.null` if the row has no such column.
    public subscript(_ column: String) -> SQLValue {
        guard let index = layout.index(of: column) else { return .null }
        return values[index]
    }

    /// The value of the column at `index` (0-based, in `columns` order).
    public subscript(_ index: Int) -> SQLValue { values[index] }

    /// The integer in `column`; nil for NULL, a missing column, a double that is not a whole
    /// number in range, text, bytes and booleans.
    public func int(_ column: String) -> Int? { int64(column).flatMap { Int(exactly: $0) } }

    /// The integer in `column`; nil for NULL, a missing column, a double that is not a whole
    /// number in range, text, bytes and booleans.
    public func int64(_ column: String) -> Int64? {
        switch self[column] {
        case .integer(let i): return i
        case .real(let d): return Int64(exactly: d)
        default: return nil
        }
    }

    /// The number in `column` (an integer converts); nil for NULL, a missing column and other types.
    public func double(_ column: String) -> Double? {
        switch self[column] {
        case .real(let d): return d
        case .integer(let i): return Double(i)
        default: return nil
        }
    }

    /// The text in `column`; nil for NULL, a missing column and other types.
    public func string(_ column: String) -> String? {
        if case .text(let s) = self[column] { return s }
        return nil
    }

    /// The bytes in `column`; nil for NULL, a missing column and other types.
    public func blob(_ column: String) -> [UInt8]? {
        if case .blob(let b) = self[column] { return b }
        return nil
    }

    /// The bytes in `column` (`blob(_:)` under PostgreSQL's name).
    public func bytes(_ column: String) -> [UInt8]? { blob(column) }

    /// The boolean in `column` (SQLite's 0 and 1 included); nil for NULL, a missing column and other values.
    public func bool(_ column: String) -> Bool? {
        switch self[column] {
        case .bool(let b): return b
        case .integer(0): return false
        case .integer(1): return true
        default: return nil
        }
    }

    /// The column names, in result order.
    public var columns: [String] { layout.names }
}

/// The column names of one result (or one prepared statement), read once and shared by its rows.
public final class SQLColumns: Sendable {
    /// The names, in result order.
    public let names: [String]
    private let exact: [String: Int]

    public init(names: [String]) {
        self.names = names
        var exact = [String: Int](minimumCapacity: names.count)
        for (i, name) in names.enumerated() where exact[name] == nil { exact[name] = i }
        self.exact = exact
    }

    /// The index of `column`: its exact name first, then ignoring ASCII case.
    public func index(of column: String) -> Int? {
        if let i = exact[column] { return i }
        let wanted = column.lowercasedASCII
        return names.firstIndex { $0.lowercasedASCII == wanted }
    }
}

extension String {
    /// The string with ASCII letters lowercased, as SQL compares identifiers.
    var lowercasedASCII: String {
        String(decoding: utf8.map { $0 >= 0x41 && $0 <= 0x5a ? $0 + 0x20 : $0 }, as: UTF8.self)
    }
}
