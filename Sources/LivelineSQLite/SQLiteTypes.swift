import LivelineSQL

/// SQLite's name for LivelineSQL's one value type (`SQLValue`): a bound parameter or a column.
public typealias SQLiteValue = SQLValue
/// SQLite's name for LivelineSQL's one row type (`SQLRow`).
public typealias SQLiteRow = SQLRow
/// SQLite's name for LivelineSQL's one migration type (`SQLMigration`).
public typealias SQLiteMigration = SQLMigration

extension String {
    /// The string with ASCII letters lowercased, as SQLite compares identifiers.
    var lowercasedASCII: String {
        String(decoding: utf8.map { $0 >= 0x41 && $0 <= 0x5a ? $0 + 0x20 : $0 }, as: UTF8.self)
    }
}
