/// One row of a query result: values by column name.
///
/// Column names are matched exactly (PostgreSQL folds unquoted names to lower case). When a result
/// has two columns of the same name (a join), the first one wins; give them distinct names with `AS`.
public struct PostgresRow: Sendable {
    let layout: PostgresColumnLayout
    let values: [PostgresValue]

    init(layout: PostgresColumnLayout, values: [PostgresValue]) {
        self.layout = layout
        self.values = values
    }

    /// The value of `column`, or `.null` if the row has no such column.
    public subscript(_ column: String) -> PostgresValue {
        guard let index = layout.index(of: column) else { return .null }
        return values[index]
    }

    /// The value of the column at `index` (0-based, in `columns` order).
    public subscript(_ index: Int) -> PostgresValue { values[index] }

    /// The integer in `column`; nil for NULL, a missing column, a double that is not a whole number, text, bytea and booleans.
    public func int(_ column: String) -> Int? { int64(column).flatMap { Int(exactly: $0) } }

    /// The integer in `column`; nil for NULL, a missing column, a double that is not a whole number, text, bytea and booleans.
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

    /// The bytes in `column` (`bytea`); nil for NULL, a missing column and other types.
    public func bytes(_ column: String) -> [UInt8]? {
        if case .bytea(let b) = self[column] { return b }
        return nil
    }

    /// The boolean in `column`; nil for NULL, a missing column and other types.
    public func bool(_ column: String) -> Bool? {
        if case .bool(let b) = self[column] { return b }
        return nil
    }

    /// The column names, in result order.
    public var columns: [String] { layout.names }
}

/// The column names of one result, read once and shared by all its rows.
final class PostgresColumnLayout: Sendable {
    let names: [String]
    private let exact: [String: Int]

    init(names: [String]) {
        self.names = names
        var exact = [String: Int](minimumCapacity: names.count)
        for (i, name) in names.enumerated() where exact[name] == nil { exact[name] = i }
        self.exact = exact
    }

    func index(of column: String) -> Int? { exact[column] }
}
