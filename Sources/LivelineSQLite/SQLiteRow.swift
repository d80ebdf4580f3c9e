/// One row of a query result: values by column name.
///
/// Column names are matched exactly first, then ignoring ASCII case (SQLite's own rule for
/// identifiers). When a result has two columns of the same name (a join), the first one wins;
/// give them distinct names with `AS`.
public struct SQLiteRow: Sendable {
    let layout: SQLiteColumnLayout
    let values: [SQLiteValue]

    init(layout: SQLiteColumnLayout, values: [SQLiteValue]) {
        self.layout = layout
        self.values = values
    }

    /// The value of `column`, or `.null` if the row has no such column.
    public subscript(_ column: String) -> SQLiteValue {
        guard let index = layout.index(of: column) else { return .null }
        return values[index]
    }

    /// The value of the column at `index` (0-based, in `columns` order).
    public subscript(_ index: Int) -> SQLiteValue { values[index] }

    /// The integer in `column`; nil for NULL, a missing column, a REAL that is not a whole number
    /// in range, or text and blobs.
    public func int(_ column: String) -> Int? { int64(column).flatMap { Int(exactly: $0) } }

    /// The integer in `column`; nil for NULL, a missing column, a REAL that is not a whole number
    /// in range, or text and blobs.
    public func int64(_ column: String) -> Int64? {
        switch self[column] {
        case .integer(let i): return i
        case .real(let d): return Int64(exactly: d)
        default: return nil
        }
    }

    /// The number in `column` (an INTEGER converts); nil for NULL, a missing column, text and blobs.
    public func double(_ column: String) -> Double? {
        switch self[column] {
        case .real(let d): return d
        case .integer(let i): return Double(i)
        default: return nil
        }
    }

    /// The text in `column`; nil for NULL, a missing column, numbers and blobs.
    public func string(_ column: String) -> String? {
        if case .text(let s) = self[column] { return s }
        return nil
    }

    /// The bytes in `column`; nil for NULL, a missing column, numbers and text.
    public func blob(_ column: String) -> [UInt8]? {
        if case .blob(let b) = self[column] { return b }
        return nil
    }

    /// The column names, in result order.
    public var columns: [String] { layout.names }
}

/// The column names of one prepared statement, read once and shared by all its rows.
final class SQLiteColumnLayout: Sendable {
    let names: [String]
    private let exact: [String: Int]

    init(names: [String]) {
        self.names = names
        var exact = [String: Int](minimumCapacity: names.count)
        for (i, name) in names.enumerated() where exact[name] == nil { exact[name] = i }
        self.exact = exact
    }

    func index(of column: String) -> Int? {
        if let i = exact[column] { return i }
        let wanted = column.lowercasedASCII
        return names.firstIndex { $0.lowercasedASCII == wanted }
    }
}

extension String {
    /// The string with ASCII letters lowercased, as SQLite compares identifiers.
    var lowercasedASCII: String {
        String(decoding: utf8.map { $0 >= 0x41 && $0 <= 0x5a ? $0 + 0x20 : $0 }, as: UTF8.self)
    }
}
