import COpenSSL
import Foundation

/// An OpenSSL `SSL_CTX` configured for HTTP/2: TLS 1.2+, ALPN `h2`, verification always on for
/// clients.
///
/// Thread confinement: the context is fully configured in `init` and never changed afterwards;
/// OpenSSL allows `SSL_new` on a configured context from any thread, which is the only use.
final class TLSContext: @unchecked Sendable {
    let context: OpaquePointer

    /// ALPN list a client offers: `h2` first; `http/1.1` only so that a server without HTTP/2
    /// answers with what it has and the error can name it.
    private static let clientALPN: [UInt8] = [2] + Array("h2".utf8) + [8] + Array("http/1.1".utf8)

    private init(context: OpaquePointer) {
        self.context = context
    }

    deinit {
        SSL_CTX_free(context)
    }

    /// A client context trusting `trust`, optionally presenting `identity`.
    static func client(trust: TrustRoots, identity: TLSIdentity?) throws(HTTP2Error) -> TLSContext {
        guard let ctx = SSL_CTX_new(TLS_client_method()) else {
            throw HTTP2Error(.tlsFailed, "SSL_CTX_new failed: \(openSSLErrors())")
        }
        let result = TLSContext(context: ctx)
        try result.applyCommon()
        SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, nil)
        switch trust {
        case .system:
            guard SSL_CTX_set_default_verify_paths(ctx) == 1 else {
                throw HTTP2Error(.tlsFailed, "cannot load the system trust store: \(openSSLErrors())")
            }
        case .caFile(let path):
            guard FileManager.default.isReadableFile(atPath: path) else {
                throw HTTP2Error(.invalidArgument, "CA file \(path) does not exist or is not readable")
            }
            guard SSL_CTX_load_verify_locations(ctx, path, nil) == 1 else {
                throw HTTP2Error(.invalidArgument, "CA file \(path) holds no PEM certificate: \(openSSLErrors())")
            }
        }
        // https://www.openssl.org/docs/man3.0/man3/SSL_CTX_set_alpn_protos.html: returns 0 on success.
        let alpnResult = clientALPN.withUnsafeBufferPointer { SSL_CTX_set_alpn_protos(ctx, $0.baseAddress, UInt32($0.count)) }
        guard alpnResult == 0 else { throw HTTP2Error(.tlsFailed, "cannot set ALPN: \(openSSLErrors())") }
        if let identity { try result.use(identity) }
        return result
    }

    /// A server context with `identity`, choosing ALPN `h2` only, optionally asking clients for
    /// a certificate verified against `clientCAFile` (clients without one are still accepted).
    static func server(identity: TLSIdentity, clientCAFile: String?) throws(HTTP2Error) -> TLSContext {
        guard let ctx = SSL_CTX_new(TLS_server_method()) else {
            throw HTTP2Error(.tlsFailed, "SSL_CTX_new failed: \(openSSLErrors())")
        }
        let result = TLSContext(context: ctx)
        try result.applyCommon()
        try result.use(identity)
        SSL_CTX_set_alpn_select_cb(ctx, TLSCallbacks.selectH2, nil)
        if let clientCAFile {
            guard FileManager.default.isReadableFile(atPath: clientCAFile) else {
                throw HTTP2Error(.invalidArgument, "client CA file \(clientCAFile) does not exist or is not readable")
            }
            guard SSL_CTX_load_verify_locations(ctx, clientCAFile, nil) == 1, let names = SSL_load_client_CA_file(clientCAFile) else {
                throw HTTP2Error(.invalidArgument, "client CA file \(clientCAFile) holds no PEM certificate: \(openSSLErrors())")
            }
            SSL_CTX_set_client_CA_list(ctx, names)
            // Ask for a certificate and verify one if given; a client without one still connects
            // (token-authenticated APNs connections send none).
            SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, nil)
        }
        return result
    }

    private func applyCommon() throws(HTTP2Error) {
        guard liveline_SSL_CTX_set_min_proto_version(context, TLS1_2_VERSION) == 1 else {
            throw HTTP2Error(.tlsFailed, "cannot require TLS 1.2: \(openSSLErrors())")
        }
        _ = liveline_SSL_CTX_set_mode(context, liveline_SSL_MODE_ENABLE_PARTIAL_WRITE() | liveline_SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER())
        _ = liveline_SSL_CTX_set_options(context, liveline_SSL_OP_NO_RENEGOTIATION() | liveline_SSL_OP_NO_COMPRESSION())
    }

    private func use(_ identity: TLSIdentity) throws(HTTP2Error) {
        guard FileManager.default.isReadableFile(atPath: identity.certificateFile) else {
            throw HTTP2Error(.invalidArgument, "certificate file \(identity.certificateFile) does not exist or is not readable")
        }
        guard FileManager.default.isReadableFile(atPath: identity.keyFile) else {
            throw HTTP2Error(.invalidArgument, "key file \(identity.keyFile) does not exist or is not readable")
        }
        guard SSL_CTX_use_certificate_chain_file(context, identity.certificateFile) == 1 else {
            throw HTTP2Error(.invalidArgument, "certificate file \(identity.certificateFile) holds no usable PEM certificate: \(openSSLErrors())")
        }
        guard SSL_CTX_use_PrivateKey_file(context, identity.keyFile, SSL_FILETYPE_PEM) == 1 else {
            // Never include key material; the file name is enough.
            throw HTTP2Error(.invalidArgument, "key file \(identity.keyFile) holds no usable unencrypted PEM private key")
        }
        guard SSL_CTX_check_private_key(context) == 1 else {
            throw HTTP2Error(.invalidArgument, "key file \(identity.keyFile) does not match certificate \(identity.certificateFile)")
        }
    }
}
