@testable import LivelineHTTP2
import Testing

@Suite("RequestQueue")
struct RequestQueueTests {
    private func request(_ path: String) -> PendingRequest {
        PendingRequest(request: HTTP2Request(path: path), deadline: 0) { _ in }
    }

    @Test("first in, first out; finished entries are skipped; removeAll returns the rest")
    func order() {
        var queue = RequestQueue()
        let items = (0..<5).map { request("/\($0)") }
        items.forEach { queue.append($0) }
        items[1].finish(.failure(HTTP2Error(.timeout, "late")))
        #expect(queue.popFirst()?.request.path == "/0")
        #expect(queue.popFirst()?.request.path == "/2")
        #expect(queue.removeAll().map(\.request.path) == ["/3", "/4"])
        #expect(queue.isEmpty && queue.popFirst() == nil)
    }

    @Test("a long-lived queue keeps order across compactions")
    func compaction() {
        var queue = RequestQueue()
        var expected = 0
        var next = 0
        for round in 0..<50 {
            for _ in 0..<(100 + round) {
                queue.append(request("/\(next)"))
                next += 1
            }
            for _ in 0..<90 {
                #expect(queue.popFirst()?.request.path == "/\(expected)")
                expected += 1
            }
        }
        #expect(queue.count == next - expected)
        while let item = queue.popFirst() {
            #expect(item.request.path == "/\(expected)")
            expected += 1
        }
        #expect(expected == next)
    }
}
