import LivelineHTTP2

/// Opens connections with LivelineHTTP2 (nghttp2 + OpenSSL + epoll): TLS 1.2+, ALPN h2, SNI,
/// verification always on (system store or the environment's CA file).
struct HTTP2PushConnector: PushConnector {
    func connect(to endpoint: Endpoint, timeouts: APNSConfiguration.Timeouts) async throws(WireError) -> any PushConnection {
        let configuration = HTTP2ClientConfiguration(
            trust: endpoint.caFile.map { .caFile($0) } ?? .system,
            identity: endpoint.certificate.map { TLSIdentity(certificateFile: $0.certFile, keyFile: $0.keyFile) },
            connectTimeout: timeouts.connect, requestTimeout: timeouts.requestDeadline, idlePingInterval: timeouts.idlePing)
        do {
            let connection = try await HTTP2Connection.connect(host: endpoint.host, port: endpoint.port, configuration: configuration)
            return HTTP2PushConnection(connection)
        } catch {
            switch error.code {
            case .connectFailed, .connectTimeout, .resolveFailed, .connectionClosed, .goAway:
                throw WireError(kind: .connectTransient, message: error.message)
            default:
                // Certificate verification, ALPN, TLS and bad arguments do not get better by retrying.
                throw WireError(kind: .connectPermanent, message: error.message)
            }
        }
    }
}

/// One LivelineHTTP2 connection behind the pool's interface.
final class HTTP2PushConnection: PushConnection {
    let connection: HTTP2Connection

    init(_ connection: HTTP2Connection) { self.connection = connection }

    /// `request` as LivelineHTTP2 takes it.
    private static func http(_ request: WireRequest, timeout: Duration) -> HTTP2Request {
        var http = HTTP2Request(method: request.method, path: request.path, headers: HTTP2Headers(request.headers), body: request.body, timeout: timeout,
                                indexesPath: request.indexesPath)
        http.isChecked = request.isChecked
        return http
    }

    func send(_ request: WireRequest, timeout: Duration) async throws(WireError) -> WireResponse {
        do {
            let response = try await connection.send(Self.http(request, timeout: timeout))
            return WireResponse(status: response.status, headers: response.headers.fields, body: response.body)
        } catch {
            throw Self.wireError(error)
        }
    }

    /// The callback path: no task and no cancellation handler per request.
    func send(_ request: WireRequest, timeout: Duration, completion: @escaping @Sendable (Result<WireResponse, WireError>) -> Void) {
        connection.send(Self.http(request, timeout: timeout)) { result in
            switch result {
            case .success(let response):
                completion(.success(WireResponse(status: response.status, headers: response.headers.fields, body: response.body)))
            case .failure(let error):
                completion(.failure(Self.wireError(error)))
            }
        }
    }

    static func wireError(_ error: HTTP2Error) -> WireError {
        // LivelineHTTP2 names a device-token path by an 8-character prefix only (Redaction).
        let message = error.message
        if error.isRetryable { return WireError(kind: .notProcessed, message: message) }
        switch error.code {
        case .timeout: return WireError(kind: .deadline, message: message)
        case .closed, .cancelled: return WireError(kind: .closed, message: message)
        case .invalidArgument: return WireError(kind: .connectPermanent, message: message)
        default: return WireError(kind: .lost, message: message)
        }
    }

    var isUsable: Bool { connection.isUsable }

    func close(grace: Duration) async {
        if grace <= .zero {
            await connection.close(drain: false)
            return
        }
        let connection = self.connection
        let timer = Task {
            try? await Task.sleep(for: grace)
            if !Task.isCancelled { await connection.close(drain: false) }
        }
        await connection.close(drain: true)
        timer.cancel()
    }
}
