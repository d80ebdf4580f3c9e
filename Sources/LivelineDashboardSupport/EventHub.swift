import Foundation
import LivelineHTTPServer
import Synchronization

/// The pages listening: one `text/event-stream` per open page. Each change is written to every
/// stream as it happens; a comment line every `heartbeat` lets closed pages be noticed and freed.
package final class EventHub: Sendable {
    private struct State {
        var streams: [ObjectIdentifier: HTTPBodyStream] = [:]
        var nextID = 0
    }

    private let state = Mutex(State())
    private let heartbeatTask: Mutex<Task<Void, Never>?> = Mutex(nil)

    /// Starts the heartbeat.
    package init(heartbeat: Duration) {
        let task = Task { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: heartbeat)
                guard let self else { return }
                self.broadcastRaw(": heartbeat\n\n")
            }
        }
        heartbeatTask.withLock { $0 = task }
    }

    /// How many pages listen.
    package var listeners: Int { state.withLock { $0.streams.count } }

    /// A new stream for a page; it leaves the hub when the page goes away.
    package func open() -> HTTPBodyStream {
        let stream = HTTPBodyStream(bufferLimit: 8 << 20)
        let key = ObjectIdentifier(stream)
        state.withLock { $0.streams[key] = stream }
        stream.onClose { [weak self] in self?.state.withLock { _ = $0.streams.removeValue(forKey: key) } }
        stream.write("retry: 1000\n\n")
        return stream
    }

    /// Sends one event (`event:` name, `id:`, one `data:` line of JSON) to every page.
    package func send(event: String, data: String) {
        let id = state.withLock { s -> Int in
            s.nextID += 1
            return s.nextID
        }
        broadcastRaw("event: \(event)\nid: \(id)\ndata: \(data)\n\n")
    }

    private func broadcastRaw(_ text: String) {
        let bytes = Array(text.utf8)
        for stream in state.withLock({ Array($0.streams.values) }) { stream.write(bytes) }
    }

    /// Stops the heartbeat and ends every stream.
    package func close() {
        heartbeatTask.withLock { $0?.cancel() }
        for stream in state.withLock({ Array($0.streams.values) }) { stream.finish() }
    }
}
