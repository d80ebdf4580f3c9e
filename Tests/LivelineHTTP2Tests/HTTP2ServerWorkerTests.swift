import Dispatch
import Foundation
import LivelineHTTP2
import LivelineTesting
import Testing

/// A server whose handler runs on `workers` worker threads.
private func startWorkerServer(_ pki: TestPKI, workers: Int = 1, handler: @escaping HTTP2Server.Handler) throws -> HTTP2Server {
    let configuration = HTTP2ServerConfiguration(
        identity: TLSIdentity(certificateFile: pki.serverCertificate.path, keyFile: pki.serverKey.path),
        execution: .workers(count: workers, stackSize: 8 << 20))
    return try HTTP2Server.start(configuration: configuration, handler: handler)
}

/// The names of this process's threads (`/proc/self/task/*/comm`).
private func threadNames() -> [String] {
    let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
    return tasks.compactMap { try? String(contentsOfFile: "/proc/self/task/\($0)/comm", encoding: .utf8) }
        .map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
}

@Suite("HTTP2Server with its handler on worker threads")
struct HTTP2ServerWorkerTests {
    @Test("the handler runs on the connection's worker, not the loop; a handler blocked on one worker stops neither PING nor another worker's answers")
    func loopKeepsServing() async throws {
        let pki = try TestPKI.shared()
        let entered = TestSignal()
        let gate = DispatchSemaphore(value: 0)
        let threads = Locked<[String: String]>([:])
        let server = try startWorkerServer(pki, workers: 2) { request, responder in
            threads.withLock { $0[request.path] = Thread.current.name ?? "?" }
            if request.path == "/block" {
                entered.signal()
                // Blocks the worker (the behaviour under test), bounded: 504 when never released.
                guard (try? gate.wait(within: .seconds(300), "the test to release /block")) != nil else { return responder.respond(status: 504) }
            }
            responder.respond(status: 200)
        }
        // Connection ids 1 and 2 go to workers 1 and 0.
        let blocked = try await connect(server, pki)
        let other = try await connect(server, pki)
        let stuck = Task { await result(blocked, HTTP2Request(method: "GET", path: "/block")) }
        try await entered.wait("/block to reach its worker")
        // The loop still reads, answers PING and carries the other worker's answer.
        let rtt = try await blocked.ping()
        #expect(rtt < .seconds(30))
        #expect(try await other.send(HTTP2Request(method: "GET", path: "/quick")).status == 200)
        gate.signal()
        #expect(try await stuck.value.get().status == 200)
        #expect(threads.withLock { $0 } == ["/block": "h2w \(server.port)/1", "/quick": "h2w \(server.port)/0"])
        await blocked.close()
        await other.close()
        await server.stop()
    }

    @Test("a worker's answer, then GOAWAY after it, reach the client in that order; a drop instead of an answer fails the request")
    func controlsKeepTheirOrder() async throws {
        let pki = try TestPKI.shared()
        let server = try startWorkerServer(pki) { request, responder in
            switch request.path {
            case "/goaway":
                responder.respond(status: 200, body: Array("last".utf8))
                request.connection.goAway(lastStreamID: request.streamID, errorCode: 0, debugData: Array(#"{"reason":"Shutdown"}"#.utf8))
            case "/drop":
                request.connection.drop()
            default:
                responder.respond(status: 204)
            }
        }
        let first = try await connect(server, pki)
        #expect(try await first.send(HTTP2Request(method: "GET", path: "/")).status == 204)
        let answered = try await first.send(HTTP2Request(method: "GET", path: "/goaway"))
        #expect(answered.status == 200 && answered.bodyText == "last")
        await #expect(throws: HTTP2Error.self) { _ = try await first.send(HTTP2Request(method: "GET", path: "/")) }

        let second = try await connect(server, pki)
        let dropped = await result(second, HTTP2Request(method: "GET", path: "/drop"))
        #expect(throws: HTTP2Error.self) { _ = try dropped.get() }
        await first.close()
        await second.close()
        await server.stop()
    }

    @Test("a worker hands its first answers to the loop before it finishes a long batch, so the client sees them while the rest is validated")
    func answersLeaveBeforeTheBatchEnds() async throws {
        let pki = try TestPKI.shared()
        let holding = TestSignal()
        let release = DispatchSemaphore(value: 0)
        let firstSeen = DispatchSemaphore(value: 0)
        let server = try startWorkerServer(pki) { request, responder in
            switch request.path {
            case "/hold":
                // Blocks the worker while the requests below queue up behind it as one batch.
                holding.signal()
                let released = (try? release.wait(within: .seconds(300), "the test to release /hold")) != nil
                responder.respond(status: released ? 200 : 504)
            case "/last":
                // Waits until the client has the answer to /first, queued 17 requests earlier in
                // the same batch: answered only if the worker handed it over before the batch ended.
                responder.respond(status: firstSeen.wait(timeout: .now() + 30) == .success ? 200 : 504)
            default:
                responder.respond(status: 200)
            }
        }
        let connection = try await connect(server, pki, requestTimeout: .seconds(60))
        let hold = Task { await result(connection, HTTP2Request(method: "GET", path: "/hold")) }
        try await holding.wait("/hold to reach the worker")
        // Sent from one thread in this order (completion sends queue in call order): /first,
        // 16 fillers, /last.
        let statuses = Locked<[String: Int]>([:])
        let done = DispatchGroup()
        let paths = ["/first"] + (0..<16).map { "/filler/\($0)" } + ["/last"]
        for path in paths {
            done.enter()
            connection.send(HTTP2Request(method: "GET", path: path)) { answer in
                statuses.withLock { $0[path] = (try? answer.get().status) ?? -1 }
                if path == "/first" { firstSeen.signal() }
                done.leave()
            }
        }
        // The PING's answer comes after the server read every request sent before it.
        _ = try await connection.ping()
        release.signal()
        #expect(try await hold.value.get().status == 200)
        try await withDeadline("the answers to all \(paths.count) requests") {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                done.notify(queue: .global()) { continuation.resume() }
            }
        }
        let answered = statuses.withLock { $0 }
        #expect(answered.count == paths.count)
        #expect(answered.values.allSatisfy { $0 == 200 }, "statuses: \(answered)")
        await connection.close()
        await server.stop()
    }

    @Test("stop() waits for a busy handler, sends its answer, and leaves no worker thread behind")
    func stopDrainsAndEndsThreads() async throws {
        let pki = try TestPKI.shared()
        let entered = TestSignal()
        let gate = DispatchSemaphore(value: 0)
        let server = try startWorkerServer(pki, workers: 2) { request, responder in
            entered.signal()
            // Busy until released (the behaviour under test), bounded: 504 when never released.
            let released = (try? gate.wait(within: .seconds(300), "the test to release /busy")) != nil
            responder.respond(status: released ? 200 : 504)
        }
        let names = ["h2w \(server.port)/0", "h2w \(server.port)/1"]
        let connection = try await connect(server, pki)
        let busy = Task { await result(connection, HTTP2Request(method: "GET", path: "/busy")) }
        try await entered.wait("/busy to reach its worker")
        #expect(threadNames().contains(names[1]))
        let stopping = Task { await server.stop() }
        gate.signal()
        try await withDeadline("stop() to end once the busy handler answered") { await stopping.value }
        #expect(try await busy.value.get().status == 200)
        #expect(threadNames().filter { names.contains($0) } == [])
        await connection.close()
    }

    @Test("an unusable worker count or stack size is refused, naming both values")
    func badExecutionIsRefused() throws {
        let pki = try TestPKI.shared()
        for execution in [HTTP2ServerExecution.workers(count: 0, stackSize: 8 << 20), .workers(count: 1, stackSize: 1024)] {
            let configuration = HTTP2ServerConfiguration(
                identity: TLSIdentity(certificateFile: pki.serverCertificate.path, keyFile: pki.serverKey.path), execution: execution)
            #expect {
                _ = try HTTP2Server.start(configuration: configuration) { _, responder in responder.respond(status: 200) }
            } throws: { error in
                guard let error = error as? HTTP2Error, case .workers(let count, let stack) = execution else { return false }
                return error.code == .invalidArgument && error.message.contains("count: \(count)") && error.message.contains("stackSize: \(stack)")
            }
        }
    }
}
