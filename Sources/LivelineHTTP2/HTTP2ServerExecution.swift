/// Where an `HTTP2Server` calls its handler.
public enum HTTP2ServerExecution: Sendable, Hashable {
    /// On the event-loop thread, as each request completes: the fastest path for a handler that
    /// answers at once and does little; one that blocks stops every connection.
    case loop
    /// On `count` serial worker threads the server owns, each with `stackSize` bytes of stack.
    /// A connection's requests all go to one worker (its id modulo `count`), in arrival order,
    /// so per-connection state needs no lock when kept by worker. The loop hands each worker the
    /// requests completed in one loop iteration in batches of up to 16 (one wake-up each); the
    /// answers and connection controls a handler issues on its worker thread reach the loop in
    /// batches of up to 16 too, in the order issued (one wake-up each).
    case workers(count: Int, stackSize: Int)

    /// One worker with an 8 MiB stack.
    public static var worker: HTTP2ServerExecution { .workers(count: 1, stackSize: 8 << 20) }
}
