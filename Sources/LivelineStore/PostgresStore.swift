import Foundation
import LivelinePostgres
import Synchronization

/// The shared store: one PostgreSQL database that several service instances use at once.
///
/// Each instance holds one connection, its writes serialized by a lock. Outbox rows are claimed
/// with `FOR UPDATE SKIP LOCKED`, so instances claim disjoint rows without waiting for each other,
/// and a claim is a lease: when an instance dies, another one queues its rows again once the lease
/// expires (`releaseExpiredLeases`). Migrations run under an advisory lock, so instances starting
/// together migrate once. A lost connection fails the transaction with `StoreError.isUnavailable`
/// (the API answers 503) and the next transaction reconnects. Each send notifies channel
/// `liveline_outbox` (`pg_notify`, delivered at commit), so instances that `observeSharedWork`
/// wake at once for work another instance accepted.
///
/// It owns the connection (the lock, reconnection, migration, the listeners) and hands each body
/// the one transaction implementation, `SQLTransaction` in PostgreSQL's dialect.
///
/// Confinement: `connection` is used only while `lock` is held.
public final class PostgresStore: Store, @unchecked Sendable {
    private let lock = NSLock()
    private let connection: PostgresConnection
    /// The connection string as given, for the listener's connection; never printed.
    private let url: String
    private let listener = Mutex<PostgresListener?>(nil)
    /// The notification channel a send notifies.
    static let workChannel = "liveline_outbox"
    /// The channel a key's revocation or expiry notifies, and its listener.
    static let keysChannel = "liveline_keys"
    private let keyListener = Mutex<PostgresListener?>(nil)
    /// The advisory lock id of the bootstrap admin key ("LLBOOT" in ASCII).
    static let bootstrapLock: Int64 = 0x4C4C_424F_4F54
    /// The connection string with its password as `***`.
    public let location: String
    /// Several instances share the database.
    public var isShared: Bool { true }

    /// Connects to `url` (`postgres://…`, `postgresql://…` or libpq's `keyword=value` form) and
    /// applies the migrations the database lacks.
    ///
    /// - Throws: `StoreError` naming the redacted URL: unavailable when the server cannot be
    ///   reached or refuses the connection; a migration failure otherwise.
    public init(url: String, options: PostgresConnection.Options = PostgresConnection.Options()) throws(StoreError) {
        self.url = url
        do {
            connection = try PostgresConnection(url, options: options)
        } catch {
            throw StoreError(error.message, isUnavailable: true)
        }
        location = connection.location
        do {
            try connection.migrate(Migrations.postgres)
        } catch {
            connection.close()
            throw StoreError("cannot migrate the database '\(location)': \(error.message)", isUnavailable: error.isConnectionLost)
        }
    }

    public func write<T>(_ body: (any StoreTransaction) throws -> T) throws -> T {
        lock.lock()
        defer { lock.unlock() }
        if connection.isClosed { throw StoreError("the database '\(location)' is closed", isUnavailable: true) }
        do {
            return try connection.transaction { try body(SQLTransaction(db: connection, dialect: .postgres)) }
        } catch let error as PostgresError where error.isConnectionLost {
            throw StoreError(error.message, isUnavailable: true)
        }
    }

    /// `LISTEN liveline_outbox` on a connection and a thread of its own (`PostgresListener`).
    @discardableResult
    public func observeSharedWork(_ wake: @escaping @Sendable () -> Void) -> Bool {
        guard let made = try? PostgresListener(url, channel: Self.workChannel, onNotify: wake) else { return false }
        let previous = listener.withLock { current -> PostgresListener? in
            defer { current = made }
            return current
        }
        previous?.stop()
        return true
    }

    /// `LISTEN liveline_keys` on a connection and a thread of its own.
    @discardableResult
    public func observeKeyChanges(_ changed: @escaping @Sendable () -> Void) -> Bool {
        guard let made = try? PostgresListener(url, channel: Self.keysChannel, onNotify: changed) else { return false }
        let previous = keyListener.withLock { current -> PostgresListener? in
            defer { current = made }
            return current
        }
        previous?.stop()
        return true
    }

    public func close() {
        let keyObserver = keyListener.withLock { current -> PostgresListener? in
            defer { current = nil }
            return current
        }
        keyObserver?.stop()
        let observer = listener.withLock { current -> PostgresListener? in
            defer { current = nil }
            return current
        }
        observer?.stop()
        lock.lock()
        defer { lock.unlock() }
        connection.close()
    }

    /// libpq's version.
    public static var libraryVersion: String { PostgresConnection.libraryVersion }

    /// The names of the migrations the code knows, in order (the same as SQLite's).
    public static var migrationNames: [String] { Migrations.postgres.map(\.name) }
}
