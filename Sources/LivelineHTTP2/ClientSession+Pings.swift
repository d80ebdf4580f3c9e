import CNghttp2

/// PINGs: on request (`HTTP2Connection.ping`) and after `idlePingInterval` without reading
/// anything; an unacknowledged one closes the connection (`ClientConnectionLifecycle.pingTimedOut`).
/// Loop thread only.
extension ClientSession {
    /// Sends a PING; `completion` gets the round trip, or why none was measured.
    func ping(_ completion: @escaping (Result<Duration, HTTP2Error>) -> Void) {
        guard let session, lifecycle.acceptsPings else {
            completion(.failure(.pingRefused(endpoint)))
            return
        }
        let opaque = nextPingOpaque
        nextPingOpaque += 1
        var bytes = opaque.bigEndian
        let result = withUnsafeBytes(of: &bytes) { raw in
            nghttp2_submit_ping(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), raw.bindMemory(to: UInt8.self).baseAddress)
        }
        guard result == 0 else {
            completion(.failure(HTTP2Error(.protocolError, "cannot send PING: \(String(cString: nghttp2_strerror(result)))")))
            return
        }
        let timer = loop.schedule(after: configuration.pingTimeout) { [self] in pingTimedOut() }
        pings.append((opaque, EventLoop.now(), timer, completion))
        loop.flushSoon(self)
    }

    /// The PING with `opaque` came back.
    func pingAcknowledged(_ opaque: UInt64) {
        guard let index = pings.firstIndex(where: { $0.opaque == opaque }) else { return }
        let ping = pings.remove(at: index)
        loop.cancelTimer(ping.timer)
        ping.completion(.success(.nanoseconds(Int64(EventLoop.now() - ping.start))))
    }

    /// Sends a PING once nothing was read for `idlePingInterval`, and again each interval after.
    func scheduleIdlePing() {
        guard let interval = configuration.idlePingInterval, interval > .zero else { return }
        let intervalNS = interval.nanoseconds
        let now = EventLoop.now()
        let idleFor = now - min(now, lastReadTime)
        let wait = idleFor >= intervalNS ? intervalNS : intervalNS - idleFor
        idleTimer = loop.schedule(after: .nanoseconds(Int64(wait))) { [self] in
            idleTimer = nil
            guard !isClosed else { return }
            let now = EventLoop.now()
            if now - min(now, lastReadTime) >= intervalNS && pings.isEmpty {
                ping { _ in }
            }
            scheduleIdlePing()
        }
    }
}
