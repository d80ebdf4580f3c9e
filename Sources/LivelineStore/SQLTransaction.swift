import Foundation
import LivelineSQL

/// The store's operations on one open transaction, written once for SQLite and PostgreSQL: one
/// SQL text per operation over LivelineSQL's `SQLConnection`, with `dialect` deciding the few
/// places the databases really differ (see `SQLDialect`).
///
/// The stores own the connections (`SQLiteStore`: the file, group commit; `PostgresStore`: the
/// lock, reconnection, listeners) and hand one of these to each transaction's body. The
/// operations live in files by concern, `SQLTransaction+<Concern>.swift`: keys and installations,
/// the registry (apps, devices, tokens, activities), the outbox, idempotency, interactions and
/// webhooks, channels, the budget ledger, device reports, app builds, aliases, leases.
///
/// Adding an operation: declare it at the end of `StoreTransaction`, write it once in a file of
/// its own (`extension SQLTransaction`), with `$n` placeholders and, only where the databases
/// differ, a `switch dialect`; give its migration to both lists in `Migrations.swift`.
struct SQLTransaction: StoreTransaction, RecordDecoding {
    let db: any SQLConnection
    let dialect: SQLDialect

    /// A time as stored: seconds since 1970, a double, in both databases.
    func time(_ date: Date) -> SQLValue { .real(date.timeIntervalSince1970) }

    /// The `n` column of a one-row count.
    func count(_ sql: String, _ bindings: [SQLValue]) throws -> Int {
        try db.queryOne(sql, bindings)?.int("n") ?? 0
    }

    /// Tells the instances listening on `channel` at commit (PostgreSQL's `pg_notify`); nothing
    /// on SQLite, which has one instance.
    func notify(_ channel: String) throws {
        guard dialect.isShared else { return }
        try db.run("SELECT pg_notify($1, '')", [.text(channel)])
    }

    /// `$first, $first+1, …` for `count` parameters, comma-separated.
    static func placeholders(from first: Int, count: Int) -> String {
        (first ..< first + count).map { "$\($0)" }.joined(separator: ", ")
    }

    /// `count` parenthesized tuples of `width` parameters, numbered on from `first`: a multi-row `VALUES`.
    static func rows(_ count: Int, width: Int, from first: Int) -> String {
        (0 ..< count).map { "(" + placeholders(from: first + $0 * width, count: width) + ")" }.joined(separator: ", ")
    }
}
