import Foundation

/// Why a call to the service failed: the HTTP status with the service's error code and message, or
/// the transport failure. Never carries the app key or a whole token.
public struct LivelineAppError: Error, Sendable, Equatable, CustomStringConvertible {
    private enum Kind: Sendable, Equatable {
        case service(status: Int)
        case transport
        case invalidResponse
    }

    private let kind: Kind
    /// The HTTP status, when the service answered.
    public var status: Int? { if case .service(let s) = kind { s } else { nil } }
    /// The service's `error.code` (`unknown-device`, `invalid`, ...), when it sent one.
    public let code: String?
    /// The service's `error.message`, or the transport's description.
    public let message: String
    /// The method and path of the call (`PUT /v1/devices/phone-1`); paths carry ids, never tokens.
    public let request: String
    /// The service's `Retry-After` (429, 503), in seconds: the uploader waits at least this long.
    public let retryAfter: TimeInterval?

    /// The service answered `status` with `{"error": {"code", "message"}}`.
    public static func service(status: Int, code: String?, message: String, request: String, retryAfter: TimeInterval? = nil) -> LivelineAppError {
        LivelineAppError(kind: .service(status: status), code: code, message: message, request: request, retryAfter: retryAfter)
    }

    /// The request did not get an answer (connection refused, timeout, offline).
    public static func transport(_ message: String, request: String) -> LivelineAppError {
        LivelineAppError(kind: .transport, code: nil, message: message, request: request, retryAfter: nil)
    }

    /// The answer was not HTTP or not the JSON the API documents.
    public static func invalidResponse(_ message: String, request: String) -> LivelineAppError {
        LivelineAppError(kind: .invalidResponse, code: nil, message: message, request: request, retryAfter: nil)
    }

    /// True for the transport and invalid answers.
    public var isTransport: Bool { status == nil }

    /// Worth trying again later: no answer, 408, 429, 5xx, and 401/403 (the key may be replaced by
    /// a new configuration); the token must not be dropped for those.
    public var isRetryable: Bool {
        guard let status else { return true }
        return status == 408 || status == 429 || status >= 500 || status == 401 || status == 403
    }

    /// The service does not know the device yet (`PUT /v1/devices/{id}` must come first).
    public var isUnknownDevice: Bool { status == 404 && code == "unknown-device" }

    public var description: String {
        switch kind {
        case .service(let status):
            "\(request): \(status) \(code ?? "error"): \(message)"
        case .transport:
            "\(request): no answer from the service: \(message)"
        case .invalidResponse:
            "\(request): unexpected answer: \(message)"
        }
    }
}
