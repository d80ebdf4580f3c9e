import CNghttp2
import COpenSSL

/// The client's connection setup after TCP: what a failed TLS handshake means, the ALPN check,
/// and the nghttp2 client session with its first SETTINGS. Called by `ClientSession` on the
/// loop thread.
enum ClientHandshake {
    /// The error of a failed handshake: the certificate did not verify, ALPN was refused, or
    /// OpenSSL's `detail`.
    static func failure(_ ssl: OpaquePointer?, detail: String, endpoint: String, serverName: ServerName, trust: TrustRoots) -> HTTP2Error {
        if let ssl {
            let verify = SSL_get_verify_result(ssl)
            if verify != X509_V_OK {
                let reason = String(cString: X509_verify_cert_error_string(verify))
                let roots = switch trust {
                case .system: "the system trust store"
                case .caFile(let path): "CA file \(path)"
                }
                return HTTP2Error(.certificateVerificationFailed, "the certificate of \(endpoint) did not verify for name \(serverName) against \(roots): \(reason)")
            }
        }
        if detail.contains("no application protocol") {
            return HTTP2Error(.alpnRefused, "\(endpoint) refused ALPN h2 (TLS alert no_application_protocol): the server does not speak HTTP/2")
        }
        return HTTP2Error(.tlsFailed, "TLS handshake with \(endpoint) failed: \(detail)")
    }

    /// nil when the server selected `h2`, else the error naming what it selected.
    static func alpnError(_ ssl: OpaquePointer, endpoint: String) -> HTTP2Error? {
        var protocolPointer: UnsafePointer<UInt8>?
        var protocolLength: UInt32 = 0
        SSL_get0_alpn_selected(ssl, &protocolPointer, &protocolLength)
        let selected = protocolPointer.map { String(decoding: UnsafeBufferPointer(start: $0, count: Int(protocolLength)), as: UTF8.self) } ?? ""
        guard selected != "h2" else { return nil }
        let offered = selected.isEmpty ? "no ALPN protocol (the server ignored ALPN)" : "ALPN \"\(selected)\""
        return HTTP2Error(.alpnRefused, "\(endpoint) negotiated \(offered); HTTP/2 over TLS (ALPN h2) is required")
    }

    /// A client session whose callbacks (`ClientCallbacks`) get `userData`, with the client's
    /// SETTINGS and connection window submitted.
    static func makeSession(userData: UnsafeMutableRawPointer) -> Result<OpaquePointer, HTTP2Error> {
        var callbacks: OpaquePointer?
        nghttp2_session_callbacks_new(&callbacks)
        defer { nghttp2_session_callbacks_del(callbacks) }
        nghttp2_session_callbacks_set_on_header_callback(callbacks, ClientCallbacks.onHeader)
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, ClientCallbacks.onDataChunk)
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, ClientCallbacks.onFrame)
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, ClientCallbacks.onStreamClose)
        var option: OpaquePointer?
        nghttp2_option_new(&option)
        defer { nghttp2_option_del(option) }
        // Until the server's SETTINGS arrive, assume one stream (APNs token connections start there).
        nghttp2_option_set_peer_max_concurrent_streams(option, 1)
        // Requests are independent: no RFC 7540 priority tree to keep, so closed streams are
        // forgotten at once (with SETTINGS_NO_RFC7540_PRIORITIES below).
        nghttp2_option_set_no_closed_streams(option, 1)
        var created: OpaquePointer?
        let result = nghttp2_session_client_new2(&created, callbacks, userData, option)
        guard result == 0, let created else {
            return .failure(HTTP2Error(.internalError, "nghttp2_session_client_new failed: \(String(cString: nghttp2_strerror(result)))"))
        }
        var settings = [
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_ENABLE_PUSH.rawValue), value: 0),
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE.rawValue), value: 1 << 20),
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_NO_RFC7540_PRIORITIES.rawValue), value: 1),
        ]
        _ = nghttp2_submit_settings(created, UInt8(NGHTTP2_FLAG_NONE.rawValue), &settings, settings.count)
        _ = nghttp2_session_set_local_window_size(created, UInt8(NGHTTP2_FLAG_NONE.rawValue), 0, 1 << 24)
        return .success(created)
    }
}
