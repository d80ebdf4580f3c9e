@testable import LivelineHTTP2
import Testing

/// The client connection's lifecycle driven event by event, asserting the actions it returns and
/// the errors in them (code, retryability, message, the GOAWAY's last-stream rule).
@Suite("ClientConnectionLifecycle")
struct ClientConnectionLifecycleTests {
    typealias Lifecycle = ClientConnectionLifecycle
    static let endpoint = "api.example.com:443"
    let first = SocketAddress(numericHost: "192.0.2.1", port: 443)!
    let second = SocketAddress(numericHost: "2001:db8::1", port: 443)!
    /// APNs' shutdown GOAWAY: streams up to 9 may have been processed.
    let shutdown = HTTP2Error.GoAway(lastStreamID: 9, errorCode: 0, debugData: Array(#"{"reason":"Shutdown"}"#.utf8))

    func fresh() -> Lifecycle {
        Lifecycle(endpoint: Self.endpoint, connectTimeout: .seconds(10), pingTimeout: .seconds(5))
    }

    func handshaking() -> Lifecycle {
        var lifecycle = fresh()
        _ = lifecycle.start(addresses: [first])
        _ = lifecycle.connected()
        return lifecycle
    }

    func ready() -> Lifecycle {
        var lifecycle = handshaking()
        _ = lifecycle.settingsReceived()
        return lifecycle
    }

    func goingAway() -> Lifecycle {
        var lifecycle = ready()
        _ = lifecycle.goAwayReceived(shutdown)
        return lifecycle
    }

    func closing(_ mode: Lifecycle.CloseMode) -> Lifecycle {
        var lifecycle = ready()
        _ = lifecycle.closeRequested(mode)
        return lifecycle
    }

    func closed() -> Lifecycle {
        var lifecycle = ready()
        _ = lifecycle.transportClosed(HTTP2Error(.connectionClosed, "the peer closed the connection (EOF)"))
        return lifecycle
    }

    /// The words every GOAWAY(NO_ERROR, 9, Shutdown) error starts with.
    var goAwayText: String { #"api.example.com:443 sent GOAWAY (NO_ERROR, last stream 9, debug data {"reason":"Shutdown"})"# }

    // MARK: Connect

    @Test("connect: each address in turn, then TLS, then ready on the first SETTINGS")
    func connectPath() {
        var lifecycle = fresh()
        #expect(lifecycle.state == .idle)
        #expect(lifecycle.start(addresses: [first, second]) == [.connect(first)])
        #expect(lifecycle.connectFailed("Connection refused") == [.connect(second)])
        #expect(lifecycle.state == .connecting(addresses: [first, second], next: 2, lastError: "192.0.2.1:443: Connection refused"))
        #expect(!lifecycle.acceptsPings)
        #expect(lifecycle.connected() == [.startTLS])
        #expect(lifecycle.state == .handshaking)
        #expect(lifecycle.settingsReceived() == [.finishConnect(nil)])
        #expect(lifecycle.state == .ready)
        #expect(lifecycle.refusal == nil && lifecycle.opensStreams && lifecycle.acceptsPings && lifecycle.goAway == nil)
        // Later SETTINGS (a new stream limit) change nothing here; nor do late connect events.
        #expect(lifecycle.settingsReceived() == [])
        #expect(lifecycle.connected() == [])
        #expect(lifecycle.connectFailed("late") == [])
        #expect(lifecycle.start(addresses: [second]) == [])
        #expect(lifecycle.state == .ready)
    }

    @Test("a connect failure on the last address fails connect naming that address and its reason")
    func lastAddressFails() {
        var lifecycle = fresh()
        _ = lifecycle.start(addresses: [first, second])
        _ = lifecycle.connectFailed("Connection refused")
        let expected = HTTP2Error(.connectFailed, "cannot connect to api.example.com:443: [2001:db8::1]:443: Network is unreachable")
        #expect(lifecycle.connectFailed("Network is unreachable") == [.closeTransport(expected, abrupt: true)])
        #expect(!expected.isRetryable)
        // The socket closes with that error; connect throws it, and so does closed().
        let actions = lifecycle.transportClosed(expected)
        #expect(actions.first == .finishConnect(expected))
        #expect(actions.last == .finishClose(expected))
        #expect(lifecycle.state == .closed(error: expected, refusal: expected.notSent()))
    }

    @Test("no address at all fails connect at once")
    func noAddress() {
        var lifecycle = fresh()
        #expect(lifecycle.start(addresses: []) == [.closeTransport(HTTP2Error(.connectFailed, "cannot connect to api.example.com:443: no address to try"), abrupt: true)])
    }

    @Test("connectTimeout closes abruptly before ready, names the endpoint and the limit, and is ignored later")
    func connectTimeout() {
        let timeout = HTTP2Error(.connectTimeout, "no HTTP/2 connection to api.example.com:443 within 10.0 seconds (name resolution, connect, TLS handshake and SETTINGS)")
        var connecting = fresh()
        _ = connecting.start(addresses: [first])
        var idle = fresh()
        var shaking = handshaking()
        #expect(idle.connectTimedOut() == [.closeTransport(timeout, abrupt: true)])
        #expect(connecting.connectTimedOut() == [.closeTransport(timeout, abrupt: true)])
        #expect(shaking.connectTimedOut() == [.closeTransport(timeout, abrupt: true)])
        #expect(shaking.transportClosed(timeout).first == .finishConnect(timeout))
        var late = [ready(), goingAway(), closing(.drain), closed()]
        for index in late.indices {
            let before = late[index].state
            #expect(late[index].connectTimedOut() == [])
            #expect(late[index].state == before)
        }
    }

    @Test("pingTimeout closes abruptly once ready, until closed; before ready there is no PING")
    func pingTimeout() {
        let timeout = HTTP2Error(.pingTimeout, "api.example.com:443 did not acknowledge a PING within 5.0 seconds")
        var running = [ready(), goingAway(), closing(.drain), closing(.immediately)]
        for index in running.indices {
            #expect(running[index].pingTimedOut() == [.closeTransport(timeout, abrupt: true)])
        }
        var early = [fresh(), handshaking(), closed()]
        for index in early.indices {
            #expect(!early[index].acceptsPings)
            #expect(early[index].pingTimedOut() == [])
        }
    }

    @Test("the transport ending after TLS but before SETTINGS fails connect as connectionClosed")
    func closedBeforeSettings() {
        var lifecycle = handshaking()
        let actions = lifecycle.transportClosed(nil)
        let expected = HTTP2Error(.connectionClosed, "api.example.com:443 closed the connection before its SETTINGS")
        #expect(actions.first == .finishConnect(expected))
        // closed() reports the plain connection end, not the connect error.
        #expect(actions.last == .finishClose(HTTP2Error(.connectionClosed, "the connection to api.example.com:443 closed")))
    }

    @Test("GOAWAY while connecting fails connect with the GOAWAY (transient for the APNs pool)")
    func goAwayWhileConnecting() {
        var lifecycle = handshaking()
        let failure = HTTP2Error(.goAway, goAwayText, goAway: shutdown, http2ErrorCode: 0)
        #expect(lifecycle.goAwayReceived(shutdown) == [
            .refuseNewRequests(HTTP2Error(.goAway, goAwayText + "; the request was not sent", isRetryable: true, goAway: shutdown, http2ErrorCode: 0)),
            .closeTransport(failure, abrupt: false),
        ])
        #expect(lifecycle.transportClosed(failure).first == .finishConnect(failure))
        #expect(lifecycle.state == .closed(error: failure, refusal: failure.notSent()))
    }

    @Test("closing before ready fails connect at once")
    func closeBeforeReady() {
        var lifecycle = handshaking()
        let error = HTTP2Error(.closed, "the connection to api.example.com:443 was closed by the client before it was ready")
        #expect(lifecycle.closeRequested(.drain) == [.refuseNewRequests(.closing(Self.endpoint)), .closeTransport(error, abrupt: true)])
        #expect(lifecycle.transportClosed(error).first == .finishConnect(error))
    }

    // MARK: GOAWAY

    @Test("GOAWAY with requests queued and active: queued fail retryable, above the last stream not processed, at or below not complete")
    func goAwayQueuedAndActive() throws {
        var lifecycle = ready()
        let refusal = HTTP2Error(.goAway, goAwayText + "; the request was not sent", isRetryable: true, goAway: shutdown, http2ErrorCode: 0)
        #expect(lifecycle.goAwayReceived(shutdown) == [.refuseNewRequests(refusal), .failQueued(refusal)])
        #expect(lifecycle.state == .goingAway(shutdown))
        #expect(lifecycle.refusal == refusal)
        #expect(!lifecycle.opensStreams && lifecycle.acceptsPings)
        // Streams nghttp2 closes as the GOAWAY is handled.
        let above = try #require(lifecycle.notProcessed(streamID: 11, "POST /3/device/ab on stream 11"))
        #expect(above == HTTP2Error(.goAway, "api.example.com:443 sent GOAWAY with last stream 9; POST /3/device/ab on stream 11 was not processed",
                                    isRetryable: true, goAway: shutdown, http2ErrorCode: 0))
        #expect(lifecycle.notProcessed(streamID: 9, "stream 9") == nil)
        // Then the server closes: what is still open fails by the same rule.
        let actions = lifecycle.transportClosed(nil)
        let failure = HTTP2Error(.goAway, goAwayText, goAway: shutdown, http2ErrorCode: 0)
        #expect(actions == [
            .refuseNewRequests(refusal),
            .failActive(.connectionEnded(failure, goAway: shutdown, endpoint: Self.endpoint)),
            .failQueued(refusal),
            .failPings(failure),
            .finishClose(failure),
        ])
        guard case .failActive(let streams) = actions[1] else { return }
        let notProcessed = streams.error(forStream: 13)
        #expect(notProcessed.code == .goAway && notProcessed.isRetryable && notProcessed.goAway == shutdown)
        #expect(notProcessed.message == "api.example.com:443 sent GOAWAY with last stream 9; stream 13 was not processed")
        let incomplete = streams.error(forStream: 9)
        #expect(incomplete.code == .goAway && !incomplete.isRetryable && incomplete.http2ErrorCode == 0)
        #expect(incomplete.message == goAwayText + " before the response on stream 9 was complete")
    }

    @Test("a transport error after GOAWAY is noted in the GOAWAY error")
    func goAwayThenError() {
        var lifecycle = goingAway()
        let broken = HTTP2Error(.connectionClosed, "the peer closed the connection (EOF)")
        let failure = HTTP2Error(.goAway, goAwayText + " (then: the peer closed the connection (EOF))", goAway: shutdown, http2ErrorCode: 0)
        let actions = lifecycle.transportClosed(broken)
        #expect(actions.contains(.failQueued(failure.notSent())))
        #expect(actions.last == .finishClose(failure))
        // New requests keep the refusal they had since the GOAWAY.
        #expect(lifecycle.refusal == HTTP2Error.goAway(shutdown, from: Self.endpoint, .requestNotSent))
    }

    @Test("a second GOAWAY with a lower last stream ID replaces the first")
    func secondGoAway() {
        var lifecycle = goingAway()
        let lower = HTTP2Error.GoAway(lastStreamID: 3, errorCode: 2, debugData: [])
        let refusal = HTTP2Error(.goAway, "api.example.com:443 sent GOAWAY (INTERNAL_ERROR, last stream 3); the request was not sent",
                                 isRetryable: true, goAway: lower, http2ErrorCode: 2)
        #expect(lifecycle.goAwayReceived(lower) == [.refuseNewRequests(refusal), .failQueued(refusal)])
        #expect(lifecycle.notProcessed(streamID: 5, "stream 5")?.isRetryable == true)
    }

    // MARK: Close

    @Test("close(drain): new requests refused, what runs finishes, then one GOAWAY, and closed() reports nil")
    func closeDrain() {
        var lifecycle = ready()
        let refusal = HTTP2Error(.closed, "the connection to api.example.com:443 is closing; the request was not sent", isRetryable: true)
        #expect(lifecycle.closeRequested(.drain) == [.refuseNewRequests(refusal), .flush])
        #expect(lifecycle.state == .closing(mode: .drain, goAway: nil, goodbyeSent: false))
        #expect(lifecycle.refusal == refusal && lifecycle.opensStreams)
        #expect(lifecycle.streamsDrained() == [.sendGoAway])
        #expect(lifecycle.streamsDrained() == [])
        let actions = lifecycle.transportClosed(nil)
        #expect(actions.last == .finishClose(nil))
        #expect(actions.contains(.failQueued(HTTP2Error(.closed, "the connection to api.example.com:443 was closed by the client; the request was not sent", isRetryable: true))))
        #expect(lifecycle.state == .closed(error: nil, refusal: refusal))
    }

    @Test("close(immediately): queued fail retryable, active fail not retryable, then GOAWAY")
    func closeImmediately() {
        var lifecycle = ready()
        let closedByClient = HTTP2Error(.closed, "the connection to api.example.com:443 was closed by the client")
        #expect(lifecycle.closeRequested(.immediately) == [
            .refuseNewRequests(.closing(Self.endpoint)),
            .failQueued(closedByClient.retryable(true)),
            .failActive(.all(closedByClient)),
            .flush,
        ])
        #expect(Lifecycle.StreamFailure.all(closedByClient).error(forStream: 41).isRetryable == false)
        #expect(lifecycle.streamsDrained() == [.sendGoAway])
        #expect(lifecycle.transportClosed(nil).last == .finishClose(nil))
    }

    @Test("a second close: drain again flushes, immediately after drain fails what is left, anything after immediately is ignored")
    func secondClose() {
        var drainTwice = closing(.drain)
        #expect(drainTwice.closeRequested(.drain) == [.flush])
        var escalate = closing(.drain)
        _ = escalate.streamsDrained()
        let closedByClient = HTTP2Error.closedByClient(Self.endpoint)
        #expect(escalate.closeRequested(.immediately) == [.failQueued(closedByClient.retryable(true)), .failActive(.all(closedByClient)), .flush])
        #expect(escalate.state == .closing(mode: .immediately, goAway: nil, goodbyeSent: true))
        #expect(escalate.streamsDrained() == [], "the GOAWAY went out once")
        var immediately = closing(.immediately)
        #expect(immediately.closeRequested(.drain) == [])
        #expect(immediately.closeRequested(.immediately) == [])
        #expect(immediately.state == .closing(mode: .immediately, goAway: nil, goodbyeSent: false))
    }

    @Test("close(drain) then GOAWAY: the GOAWAY's refusal wins, queued fail, and closed() reports the GOAWAY")
    func closeThenGoAway() {
        var lifecycle = closing(.drain)
        let refusal = HTTP2Error.goAway(shutdown, from: Self.endpoint, .requestNotSent)
        #expect(lifecycle.goAwayReceived(shutdown) == [.refuseNewRequests(refusal), .failQueued(refusal)])
        #expect(lifecycle.state == .closing(mode: .drain, goAway: shutdown, goodbyeSent: false))
        #expect(!lifecycle.opensStreams)
        #expect(lifecycle.notProcessed(streamID: 15, "stream 15")?.isRetryable == true)
        #expect(lifecycle.streamsDrained() == [.sendGoAway])
        let actions = lifecycle.transportClosed(nil)
        let failure = HTTP2Error(.goAway, goAwayText, goAway: shutdown, http2ErrorCode: 0)
        #expect(actions.last == .finishClose(failure))
        #expect(lifecycle.state == .closed(error: failure, refusal: refusal))
    }

    @Test("GOAWAY then close: no second refusal; immediately still fails what runs")
    func goAwayThenClose() {
        var drain = goingAway()
        #expect(drain.closeRequested(.drain) == [.flush])
        #expect(drain.state == .closing(mode: .drain, goAway: shutdown, goodbyeSent: false))
        #expect(drain.refusal == HTTP2Error.goAway(shutdown, from: Self.endpoint, .requestNotSent))
        var immediately = goingAway()
        let closedByClient = HTTP2Error.closedByClient(Self.endpoint)
        #expect(immediately.closeRequested(.immediately) == [.failQueued(closedByClient.retryable(true)), .failActive(.all(closedByClient)), .flush])
    }

    @Test("a server's GOAWAY alone never makes the client send one: nghttp2 ends the session")
    func goingAwayDrains() {
        var lifecycle = goingAway()
        #expect(lifecycle.streamsDrained() == [])
        var readyOnly = ready()
        #expect(readyOnly.streamsDrained() == [])
    }

    @Test("stream IDs used up: finish what runs, refuse the rest, then close")
    func streamIDsExhausted() {
        var lifecycle = ready()
        #expect(lifecycle.streamIDsExhausted() == [.refuseNewRequests(.closing(Self.endpoint))])
        #expect(lifecycle.state == .closing(mode: .drain, goAway: nil, goodbyeSent: false))
        #expect(lifecycle.streamIDsExhausted() == [])
        var afterGoAway = goingAway()
        #expect(afterGoAway.streamIDsExhausted() == [])
    }

    // MARK: Transport failures and the end

    @Test("a broken connection: active fail not retryable naming their stream, queued retryable, waiters get the error")
    func transportFailure() {
        var lifecycle = ready()
        let broken = HTTP2Error(.connectionClosed, "the peer closed the connection (EOF)")
        let actions = lifecycle.transportClosed(broken)
        #expect(actions == [
            .refuseNewRequests(broken.notSent()),
            .failActive(.connectionEnded(broken, goAway: nil, endpoint: Self.endpoint)),
            .failQueued(broken.notSent()),
            .failPings(broken),
            .finishClose(broken),
        ])
        let stream = Lifecycle.StreamFailure.connectionEnded(broken, goAway: nil, endpoint: Self.endpoint).error(forStream: 101)
        #expect(stream == HTTP2Error(.connectionClosed, "the peer closed the connection (EOF) before the response on stream 101 was complete"))
        #expect(broken.notSent().message == "the peer closed the connection (EOF); the request was not sent" && broken.notSent().isRetryable)
        #expect(lifecycle.refusal == broken.notSent() && !lifecycle.acceptsPings && !lifecycle.opensStreams)
    }

    @Test("a clean end nobody asked for is connectionClosed")
    func cleanEndInReady() {
        var lifecycle = ready()
        #expect(lifecycle.transportClosed(nil).last == .finishClose(HTTP2Error(.connectionClosed, "the connection to api.example.com:443 closed")))
    }

    @Test("events after closed are ignored")
    func afterClosed() {
        var lifecycle = closed()
        let state = lifecycle.state
        #expect(lifecycle.start(addresses: [first]) == [])
        #expect(lifecycle.connectFailed("refused") == [])
        #expect(lifecycle.connected() == [])
        #expect(lifecycle.settingsReceived() == [])
        #expect(lifecycle.goAwayReceived(shutdown) == [])
        #expect(lifecycle.streamsDrained() == [])
        #expect(lifecycle.streamIDsExhausted() == [])
        #expect(lifecycle.connectTimedOut() == [])
        #expect(lifecycle.pingTimedOut() == [])
        #expect(lifecycle.closeRequested(.drain) == [])
        #expect(lifecycle.closeRequested(.immediately) == [])
        #expect(lifecycle.transportClosed(nil) == [])
        #expect(lifecycle.state == state)
    }
}
