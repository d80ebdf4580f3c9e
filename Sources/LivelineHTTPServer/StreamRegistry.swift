import Synchronization

/// The streamed bodies a server is sending, so that stopping can end them. A stream leaves the
/// registry when its response is freed.
final class StreamRegistry: Sendable {
    private let open = Mutex<[ObjectIdentifier: HTTPBodyStream]>([:])

    func add(_ stream: HTTPBodyStream) {
        let key = ObjectIdentifier(stream)
        open.withLock { $0[key] = stream }
        stream.onClose { [weak self] in self?.open.withLock { _ = $0.removeValue(forKey: key) } }
    }

    /// How many streams are being sent.
    var count: Int { open.withLock { $0.count } }

    func finishAll() {
        for stream in open.withLock({ Array($0.values) }) { stream.finish() }
    }
}
