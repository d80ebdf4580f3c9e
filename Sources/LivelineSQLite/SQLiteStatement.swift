import CSQLite
import LivelineSQL

/// A prepared statement (`sqlite3_stmt *`) owned by one `SQLiteDatabase`, which finalizes it.
///
/// Cached statements live as long as their connection; a statement asked for again while it is
/// still stepping (a query inside `forEachRow` over the same SQL) is prepared anew, used once and
/// finalized, so the outer iteration is never reset under its feet.
final class SQLiteStatement {
    let handle: OpaquePointer
    let sql: String
    /// Whether the connection's cache owns it; temporary statements are finalized after one use.
    let isCached: Bool
    /// The number of parameters SQLite counts (the largest index for `?NNN`; each distinct `$n` once).
    let parameterCount: Int
    /// For each parameter, the index of the value bound to it, when some are named `$n` (value
    /// n - 1); nil when they bind by position (`?`, `?NNN`). Read once, when prepared.
    let slots: [Int]?
    /// How many values a call must bind: the largest `$n`, or `parameterCount`.
    let bindingCount: Int
    /// Column names, read when prepared and again only if the column count changes (a schema
    /// change re-prepares the statement inside `sqlite3_step`).
    private(set) var layout: SQLColumns
    /// Set while a caller is stepping it.
    var inUse = false
    private(set) var isFinalized = false

    init(handle: OpaquePointer, sql: String, isCached: Bool) {
        self.handle = handle
        self.sql = sql
        self.isCached = isCached
        self.parameterCount = Int(sqlite3_bind_parameter_count(handle))
        (self.slots, self.bindingCount) = Self.readSlots(handle, count: parameterCount)
        self.layout = SQLiteStatement.readLayout(handle)
    }

    /// Maps SQLite's parameters to values: SQLite numbers `$1`, `$2`, … in the order they first
    /// appear (they are named parameters to it), so the one named `$n` takes value n - 1.
    /// https://www.sqlite.org/c3ref/bind_parameter_name.html
    private static func readSlots(_ handle: OpaquePointer, count: Int) -> ([Int]?, Int) {
        guard count > 0 else { return (nil, 0) }
        var slots: [Int] = []
        slots.reserveCapacity(count)
        var named = false
        var largest = 0
        for i in 1 ... count {
            if let name = sqlite3_bind_parameter_name(handle, Int32(i)), name.pointee == 0x24,
               let n = Int(String(cString: name + 1)), n >= 1 {
                named = true
                slots.append(n - 1)
                largest = max(largest, n)
            } else {
                slots.append(i - 1)
                largest = max(largest, i)
            }
        }
        return named ? (slots, largest) : (nil, count)
    }

    /// Binds `values`: value n - 1 to parameter `$n`, or to the n-th `?`.
    func bind(_ values: [SQLiteValue], db: OpaquePointer) throws(SQLiteError) {
        guard values.count == bindingCount else {
            throw SQLiteError(extendedCode: SQLITE_RANGE, message:
                "the statement has \(bindingCount) parameter(s) but \(values.count) value(s) were bound, in statement: \(SQLiteError.excerpt(sql))")
        }
        for p in 0 ..< parameterCount {
            let i = slots?[p] ?? p
            let value = values[i]
            let index = Int32(p + 1)
            let rc: Int32
            switch value {
            case .bool(let bool):
                rc = sqlite3_bind_int64(handle, index, bool ? 1 : 0)
            case .null:
                rc = sqlite3_bind_null(handle, index)
            case .integer(let int):
                rc = sqlite3_bind_int64(handle, index, int)
            case .real(let double):
                rc = sqlite3_bind_double(handle, index, double)
            case .text(var text):
                rc = text.withUTF8 { utf8 in
                    liveline_sqlite3_bind_text(handle, index, UnsafeRawPointer(utf8.baseAddress)?.assumingMemoryBound(to: CChar.self),
                                               sqlite3_uint64(utf8.count))
                }
            case .blob(let bytes):
                rc = bytes.withUnsafeBytes { liveline_sqlite3_bind_blob(handle, index, $0.baseAddress, sqlite3_uint64($0.count)) }
            }
            guard rc == SQLITE_OK else {
                throw SQLiteError(extendedCode: sqlite3_extended_errcode(db), message:
                    "cannot bind value \(i + 1): \(String(cString: sqlite3_errmsg(db))), in statement: \(SQLiteError.excerpt(sql))")
            }
        }
    }

    /// The current row, after `sqlite3_step` returned `SQLITE_ROW`.
    func row() -> SQLiteRow {
        let count = Int(sqlite3_column_count(handle))
        if count != layout.names.count { layout = SQLiteStatement.readLayout(handle) }
        var values = [SQLiteValue]()
        values.reserveCapacity(count)
        for i in 0 ..< Int32(count) { values.append(column(i)) }
        return SQLRow(layout: layout, values: values)
    }

    private func column(_ i: Int32) -> SQLiteValue {
        switch sqlite3_column_type(handle, i) {
        case SQLITE_INTEGER:
            return .integer(sqlite3_column_int64(handle, i))
        case SQLITE_FLOAT:
            return .real(sqlite3_column_double(handle, i))
        case SQLITE_TEXT:
            // https://www.sqlite.org/c3ref/column_blob.html: take the pointer first, then the length.
            guard let text = sqlite3_column_text(handle, i) else { return .text("") }
            let length = Int(sqlite3_column_bytes(handle, i))
            return .text(String(decoding: UnsafeBufferPointer(start: text, count: length), as: UTF8.self))
        case SQLITE_BLOB:
            guard let bytes = sqlite3_column_blob(handle, i) else { return .blob([]) }
            let length = Int(sqlite3_column_bytes(handle, i))
            return .blob(Array(UnsafeRawBufferPointer(start: bytes, count: length)))
        default:
            return .null
        }
    }

    /// Resets it for the next use and drops the bound values (large blobs are not kept alive).
    func reset() {
        guard !isFinalized else { return }
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    func finalize() {
        guard !isFinalized else { return }
        isFinalized = true
        sqlite3_finalize(handle)
    }

    private static func readLayout(_ handle: OpaquePointer) -> SQLColumns {
        let count = sqlite3_column_count(handle)
        return SQLColumns(names: (0 ..< count).map { i in
            sqlite3_column_name(handle, i).map { String(cString: $0) } ?? "column\(i + 1)"
        })
    }
}
