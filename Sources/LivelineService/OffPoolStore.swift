import Dispatch
import LivelineStore

/// Store transactions for tasks on Swift's cooperative pool, run on a serial queue of their own.
///
/// `Store.write` blocks while it waits for the store's lock and for the commit. The pool has one
/// thread a core, so a few tasks blocked there (the outbox's pipelines claiming and recording)
/// would stop every other task, among them the ones reading APNs' verdicts. The HTTP handlers
/// run on libmicrohttpd's threads and call `Store.write` directly.
struct OffPoolStore: Sendable {
    let store: any Store
    private let queue: DispatchQueue

    init(_ store: any Store, label: String) {
        self.store = store
        queue = DispatchQueue(label: label)
    }

    /// Runs `body` in one transaction on the queue's thread and returns what it returned.
    func write<T: Sendable>(_ body: @escaping @Sendable (any StoreTransaction) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { [store] in continuation.resume(with: Result { try store.write(body) }) }
        }
    }
}
