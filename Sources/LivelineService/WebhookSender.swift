import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LivelineCrypto
import LivelineStore
import Synchronization

/// Delivers stored interactions to the backend's webhook, once each, signed and retried.
///
/// Each POST carries `Liveline-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`
/// with the configured secret, and `Idempotency-Key` (the interaction's), so the backend can
/// drop a repeat after a lost answer.
final class WebhookSender: Sendable {
    private let store: OffPoolStore
    private let configuration: ServiceConfiguration
    private let log: @Sendable (String) -> Void
    private let state = Mutex<(task: Task<Void, Never>?, wake: AsyncStream<Void>.Continuation?)>((nil, nil))
    static let maxAttempts = 10

    init(store: any Store, configuration: ServiceConfiguration, log: @escaping @Sendable (String) -> Void) {
        self.store = OffPoolStore(store, label: "liveline.webhooks.store")
        self.configuration = configuration
        self.log = log
    }

    static func signature(secret: String, timestamp: Int, body: [UInt8]) -> String {
        "t=\(timestamp),v1=" + Digest.hex(Digest.hmacSHA256(key: Array(secret.utf8), message: Array("\(timestamp).".utf8) + body))
    }

    func start() {
        guard let url = configuration.webhookURL.flatMap(URL.init(string:)) else { return }
        let (stream, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let task = Task {
            var ticks = stream.makeAsyncIterator()
            while !Task.isCancelled {
                await self.deliverDue(to: url)
                let next = Task {
                    // Cancelled (woken earlier), it must not tick: a stale tick would make the loop spin.
                    guard (try? await Task.sleep(for: .seconds(1))) != nil else { return }
                    continuation.yield()
                }
                _ = await ticks.next()
                next.cancel()
            }
        }
        state.withLock { $0 = (task, continuation) }
    }

    func wake() { _ = state.withLock { $0.wake }?.yield() }

    func stop() async {
        let task = state.withLock { s in
            defer { s.wake?.finish() }
            return s.task
        }
        task?.cancel()
        await task?.value
    }

    private func deliverDue(to url: URL) async {
        let due = (try? await store.write { try $0.dueInteractions(now: Date(), limit: 50) }) ?? []
        for interaction in due {
            var body = Service.json(interaction).serialized()
            body.append(0x0A)
            var request = URLRequest(url: url)
            request.httpMethod = "POST"
            request.httpBody = Data(body)
            request.timeoutInterval = 10
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.setValue(interaction.idempotencyKey, forHTTPHeaderField: "Idempotency-Key")
            if let secret = configuration.webhookSecret {
                request.setValue(Self.signature(secret: secret, timestamp: Int(Date().timeIntervalSince1970), body: body), forHTTPHeaderField: "Liveline-Signature")
            }
            var error: String?
            do {
                let (_, response) = try await URLSession.shared.data(for: request)
                let status = (response as? HTTPURLResponse)?.statusCode ?? 0
                if !(200...299).contains(status) { error = "the webhook answered \(status)" }
            } catch let e {
                error = "the webhook could not be reached: \(e.localizedDescription)"
            }
            let attempts = interaction.attempts + 1
            let state = error == nil ? "delivered" : (attempts >= Self.maxAttempts ? "failed" : "pending")
            let next = Date().addingTimeInterval(min(300, pow(2, Double(attempts))))
            if let error { log("webhook: interaction \(interaction.id): \(error) (attempt \(attempts))") }
            let id = interaction.id, failure = error
            _ = try? await store.write { try $0.recordWebhook(id: id, state: state, attempts: attempts, nextAttemptAt: next, error: failure) }
        }
    }
}
