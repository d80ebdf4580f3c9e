import Foundation
#if canImport(Glibc)
import Glibc
#endif
import LivelineSQLite

/// The embedded store: one SQLite file in WAL mode, one connection, writes serialized and
/// committed in groups (`GroupCommit`).
///
/// It owns the connection (opening, the file's lock, group commit) and hands each body the one
/// transaction implementation, `SQLTransaction` in SQLite's dialect.
///
/// Confinement: `database` is used only while `lock` is held.
public final class SQLiteStore: Store, @unchecked Sendable {
    private let lock = NSLock()
    private let database: SQLiteDatabase
    private let group = GroupCommit()
    public let location: String

    /// Opens (or creates) the database at `path` and applies the migrations it lacks.
    public init(path: String, synchronous: SQLiteDatabase.Options.Synchronous = .normal) throws(StoreError) {
        location = path
        var options = SQLiteDatabase.Options()
        options.synchronous = synchronous
        // One service instance per file: the lock enforces it, and commits skip shared memory.
        options.exclusive = true
        options.busyTimeout = .seconds(1)
        // A fan-out writes one outbox row (and five index entries) per token in one transaction:
        // 64 MiB of page cache keeps 100,000 of them from spilling mid-transaction.
        options.cacheSizeKiB = 64 * 1024
        try Self.ownerOnly(path)
        do {
            database = try SQLiteDatabase(path: path, options: options)
        } catch {
            if error.isBusy { throw Self.inUse(path) }
            throw StoreError("cannot open the database '\(path)': \(error.message)", isUnavailable: true)
        }
        do {
            // Secrets at rest: content a write replaces or deletes (a .p8 key sealed at start) is
            // zeroed in its page when that costs no extra I/O, so a plain key does not linger.
            _ = try database.query("PRAGMA secure_delete=FAST")
            try database.migrate(Migrations.sqlite)
        } catch {
            database.close()
            if error.isBusy { throw Self.inUse(path) }
            throw StoreError("cannot migrate the database '\(path)': \(error.message)")
        }
    }

    // MARK: File modes (secrets at rest)

    /// Creates the database file readable by its owner only (0600) before SQLite opens it (SQLite
    /// gives its -wal and -shm files the database file's mode), and takes group and other access
    /// away from an existing database and its -wal and -shm files.
    static func ownerOnly(_ path: String) throws(StoreError) {
        guard path != ":memory:", !path.hasPrefix("file:") else { return }
        let fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        if fd >= 0 {
            _ = Glibc.close(fd)
            return
        }
        guard errno == EEXIST else { return }  // SQLite reports why it cannot open it
        for file in [path, path + "-wal", path + "-shm"] {
            var info = stat()
            guard stat(file, &info) == 0, info.st_mode & 0o077 != 0 else { continue }
            guard chmod(file, info.st_mode & 0o700) == 0 else {
                throw StoreError("cannot make the database file '\(file)' readable by its owner only (chmod 0600): \(String(cString: strerror(errno)))")
            }
        }
    }

    private static func inUse(_ path: String) -> StoreError {
        StoreError("the database '\(path)' is in use by another process (another liveline serve?): one instance per SQLite file; several instances need PostgreSQL", isUnavailable: true)
    }

    /// Runs `body` in a transaction shared with the writers that arrive at the same time (see
    /// `GroupCommit`): each body runs in a savepoint of its own, and the batch commits once.
    public func write<T>(_ body: (any StoreTransaction) throws -> T) throws -> T {
        try withoutActuallyEscaping(body) { body in
            let (job, result) = Self.job(database, body)
            try group.submit(job) { [self] next in try runBatch(next) }
            return try result.get()
        }
    }

    /// `write`, suspending instead of blocking while another batch commits: the calling thread
    /// (an HTTP event loop) serves other requests meanwhile, and their writes share the next
    /// commit. Without a batch running it runs at once on the calling thread, as `write` does.
    public func writeAsync<T: Sendable>(_ body: @escaping @Sendable (any StoreTransaction) throws -> T) async throws -> T {
        let (job, result) = Self.job(database, body)
        try await group.submitAsync(job) { [self] next in try runBatch(next) }
        return try result.get()
    }

    /// A group-commit job running `body` (in a savepoint of its own when the batch asks), and
    /// where its result lands.
    private static func job<T>(_ database: SQLiteDatabase, _ body: @escaping (any StoreTransaction) throws -> T) -> (GroupCommit.Job, Outcome<T>) {
        let result = Outcome<T>()
        let job = GroupCommit.Job { savepoint in
            do {
                let tx = SQLTransaction(db: database, dialect: .sqlite)
                result.value = .success(savepoint ? try database.transaction { try body(tx) } : try body(tx))
                return true
            } catch {
                result.value = .failure(error)
                return false
            }
        }
        return (job, result)
    }

    /// The leader's part: one transaction around the jobs `next` hands out.
    private func runBatch(_ next: () -> GroupCommit.Job?) throws {
        lock.lock()
        defer { lock.unlock() }
        guard let first = next() else { return }
        if database.isClosed { throw StoreError("the database '\(location)' is closed", isUnavailable: true) }
        do {
            try database.transaction {
                // The first body has the transaction to itself so far: if it throws, rolling the
                // whole transaction back undoes only its work, and the batch ends with it.
                guard first.run(false) else { throw FirstBodyFailed() }
                while let job = next() {
                    _ = job.run(true)
                    // After SQLITE_FULL, SQLITE_IOERR and the like SQLite has rolled the whole
                    // transaction back: the batch must fail, not carry on in a new one.
                    guard database.isInTransaction else {
                        throw StoreError("the database '\(location)' rolled the transaction back after an error; nothing of it was kept", isUnavailable: true)
                    }
                }
            }
        } catch is FirstBodyFailed {
            return
        }
    }

    /// The first body of a batch threw (its error is in its own result).
    private struct FirstBodyFailed: Error {}

    /// Writers queued behind the running batch (for tests).
    var groupCommitPending: Int { group.pending }

    /// Batches committed and the transactions they carried.
    public var groupCommitCounts: (batches: Int, transactions: Int) {
        let c = group.counts
        return (c.batches, c.jobs)
    }

    public func close() {
        lock.lock()
        defer { lock.unlock() }
        database.close()
    }

    /// The SQLite library's version.
    public static var libraryVersion: String { SQLiteDatabase.libraryVersion }

    /// The names of the migrations the code knows, in order.
    public static var migrationNames: [String] { Migrations.sqlite.map(\.name) }
}

/// A job's result, written by the leader's thread before the job is marked finished (under the
/// group's lock) and read by its caller after.
private final class Outcome<T>: @unchecked Sendable {
    var value: Result<T, any Error>?

    /// The body's result, or its error; an error too if the batch ended before the body ran.
    func get() throws -> T {
        guard let value else { throw StoreError("the transaction ended before its body ran") }
        return try value.get()
    }
}
