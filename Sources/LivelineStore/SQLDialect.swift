/// What really differs between the store's two databases, for `SQLTransaction`: everything else
/// is one SQL text, with LivelineSQL's `$1`, `$2`, … placeholders, run as is on both.
///
/// The differences, each named where it is used:
/// - who else writes: SQLite's file has one writer (the file's exclusive lock and group commit),
///   so it takes no locks and passes no rows over; PostgreSQL is shared by instances, so claims
///   use `FOR UPDATE SKIP LOCKED`, sends and the bootstrap take advisory locks, and commits
///   that other instances must hear of notify them (`pg_notify`, delivered at commit);
/// - bulk statements: SQLite inserts and records many rows with multi-row `VALUES` (at most 32,766
///   parameters a statement); PostgreSQL with one `unnest` of array parameters;
/// - spellings: the two-argument larger-of function (`max` / `greatest`), the iOS major version,
///   and the condition of the `outbox_waiting_by_activity` index, written as each planner needs it.
enum SQLDialect: Sendable {
    case sqlite
    case postgres

    /// Other instances share the database (PostgreSQL): rows are claimed past each other's locks,
    /// activities and the bootstrap are locked, and commits notify.
    var isShared: Bool { self == .postgres }

    /// The two-argument larger-of function.
    var greatest: String { self == .sqlite ? "max" : "greatest" }

    /// A row not yet final, written as `outbox_waiting_by_activity`'s condition word for word (in
    /// SQLite, migration 3 rewrote it without `IN` so that the planner uses the index).
    var waitingCondition: String {
        self == .sqlite ? "(state = 'queued' OR state = 'sending' OR state = 'retrying')" : "state IN ('queued', 'sending', 'retrying')"
    }

    /// The leading number of `d.ios_version` as an integer (0 when it is not one).
    var iosMajorVersion: String {
        self == .sqlite
            ? "CAST(CASE WHEN instr(d.ios_version, '.') > 0 THEN substr(d.ios_version, 1, instr(d.ios_version, '.') - 1) ELSE d.ios_version END AS INTEGER)"
            : "(CASE WHEN split_part(d.ios_version, '.', 1) ~ '^[0-9]{1,3}$' THEN split_part(d.ios_version, '.', 1)::int ELSE 0 END)"
    }
}
