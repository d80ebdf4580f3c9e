import Dispatch
import Foundation
import Synchronization

/// Listens on one PostgreSQL notification channel (`LISTEN`) on a connection and a thread of its
/// own, and calls `onNotify` when a notification arrives, so a process wakes as soon as another
/// one commits work instead of at its next poll.
///
/// `onNotify` is also called after a lost connection was made again (notifications sent meanwhile
/// are gone), so a caller treats a call as "look again", not as a count.
///
/// - Important: thread confinement. The listener's connection is used only by its own thread;
///   `stop()` asks that thread to finish (within `pollInterval`) and waits for it.
public final class PostgresListener: Sendable {
    /// How long the thread waits on the socket before it checks whether to stop, and how long it
    /// waits before connecting again after a failure.
    public static let pollInterval: Duration = .milliseconds(250)

    private let state: ListenerState

    /// Connects and starts listening on `channel`.
    ///
    /// - Parameters:
    ///   - connectionString: as for `PostgresConnection`.
    ///   - channel: lowercase letters, digits and underscores (a channel cannot be a bound parameter).
    ///   - onNotify: called on the listener's thread.
    /// - Throws: `PostgresError` when the first connection or `LISTEN` fails, or the name is not plain.
    public init(_ connectionString: String, channel: String, options: PostgresConnection.Options = PostgresConnection.Options(),
                onNotify: @escaping @Sendable () -> Void) throws(PostgresError) {
        guard !channel.isEmpty, channel.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x7a) || $0 == 0x5f }) else {
            throw PostgresError.misuse("a notification channel is lowercase letters, digits and underscores; got '\(channel)'")
        }
        let connection = try PostgresConnection(connectionString, options: options)
        do {
            try connection.execute("LISTEN \(channel)")
        } catch {
            connection.close()
            throw error
        }
        let state = ListenerState(connection)
        self.state = state
        let thread = Thread {
            state.run(channel: channel, onNotify: onNotify)
        }
        thread.name = "liveline-pg-listen"
        thread.start()
    }

    /// Stops listening and closes the connection; returns once the thread has finished. Calling it again does nothing.
    public func stop() {
        guard !state.stopping.exchange(true, ordering: .sequentiallyConsistent) else { return }
        state.finished.wait()
    }

    deinit {
        stop()
    }
}

/// The listener's thread and what it shares with `stop()`.
///
/// Confinement: `connection` is used only on the listener's thread, inside `run`.
private final class ListenerState: @unchecked Sendable {
    let stopping = Atomic<Bool>(false)
    let finished = DispatchSemaphore(value: 0)
    private let connection: PostgresConnection

    init(_ connection: PostgresConnection) { self.connection = connection }

    func run(channel: String, onNotify: @Sendable () -> Void) {
        let interval = PostgresListener.pollInterval.components
        let timeout = Int32(interval.seconds * 1000 + interval.attoseconds / 1_000_000_000_000_000)
        while !stopping.load(ordering: .sequentiallyConsistent) {
            switch connection.waitForNotifications(timeoutMilliseconds: timeout) {
            case .notified:
                onNotify()
            case .timedOut:
                continue
            case .lost:
                // Connect again (PQreset), listen again, and tell the caller to look; or wait and retry.
                if (try? connection.reconnectIfNeeded()) != nil, (try? connection.execute("LISTEN \(channel)")) != nil {
                    onNotify()
                } else {
                    _ = finished.wait(timeout: .now() + .milliseconds(Int(timeout)))  // never signalled before run returns
                }
            }
        }
        connection.close()
        finished.signal()
    }
}
