/// Where an `HTTP2Server` calls its handler.
public enum HTTP2ServerExecution: Sendable, Hashable {
    /// On the event-loop thread, as each request completes: the fastest path for a handler that
    /// answers at once and does little; one that blocks stops every connection.
    case loop
    /// On `count` serial worker threads the server owns, each with `stackSize` bytes of stack.
    /// A connection's requests all go to one worker (its id modulo `count`), in arrival order,
    /// so per-connection state needs no lock when kept by worker. The loop hands each worker the
    /// requests completed in one loop iteration as one batch (one wake-up); the answers and
    /// connection controls a handler issues on its worker thread during a batch reach the loop
    /// together, in the order issued, once the batch is done (one wake-up).
    case workers(count: Int, stackSize: Int)

    /// One worker with an 8 MiB stack.
    public static var worker: HTTP2ServerExecution { .workers(count: 1, stackSize: 8 << 20) }
}
