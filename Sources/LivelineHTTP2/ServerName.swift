import COpenSSL

/// The name a client checks the server's certificate against: a DNS name (also sent as SNI) or
/// an IP literal (matched against the certificate's IP addresses; no SNI).
///
/// Both steps fail closed. `init` refuses a name OpenSSL would not check as given (an empty name
/// means "no name check" to `SSL_set1_host`; a NUL byte would cut the name short), and
/// `require(on:)` reports every OpenSSL call that does not set the check, so no handshake runs
/// without it.
struct ServerName: Sendable, CustomStringConvertible {
    enum Kind: Sendable {
        case dnsName
        case ipAddress
    }

    /// The name as given.
    let text: String
    let kind: Kind

    /// Checks `text` before any connection is made.
    /// - Throws: `HTTP2Error` `.invalidArgument` for an empty name or one with a NUL byte.
    init(_ text: String) throws(HTTP2Error) {
        guard !text.isEmpty else {
            throw HTTP2Error(.invalidArgument, "serverName is empty: OpenSSL would then check no name at all. Set it to a name the server's certificate covers, or leave it nil to verify the host name")
        }
        guard !text.utf8.contains(0) else {
            throw HTTP2Error(.invalidArgument, "the server name to verify contains a NUL byte: OpenSSL would check only the part before it")
        }
        self.init(text, kind: SocketAddress.isIPLiteral(text) ? .ipAddress : .dnsName)
    }

    /// A name of a known kind, unchecked (`init(_:)` checks; tests reach OpenSSL's own refusals).
    init(_ text: String, kind: Kind) {
        self.text = text
        self.kind = kind
    }

    var description: String { text }

    /// Makes `ssl` verify the peer certificate against this name (and send it as SNI when it is
    /// a DNS name). Returns an error, and the caller must not start the handshake, when OpenSSL
    /// refuses any step.
    func require(on ssl: OpaquePointer) -> HTTP2Error? {
        switch kind {
        case .ipAddress:
            // https://www.openssl.org/docs/man3.0/man3/X509_VERIFY_PARAM_set1_ip_asc.html: 1 on success.
            guard let parameters = SSL_get0_param(ssl), X509_VERIFY_PARAM_set1_ip_asc(parameters, text) == 1 else {
                return HTTP2Error(.tlsFailed, "cannot require IP address \(text) in the server's certificate: X509_VERIFY_PARAM_set1_ip_asc refused it (\(openSSLErrors())); the connection was not made")
            }
        case .dnsName:
            // https://www.openssl.org/docs/man3.0/man3/SSL_set_tlsext_host_name.html: 1 on success.
            guard liveline_SSL_set_tlsext_host_name(ssl, text) == 1 else {
                return HTTP2Error(.tlsFailed, "cannot send \(text) as the TLS server name (SNI): SSL_set_tlsext_host_name refused it (\(openSSLErrors())); the connection was not made")
            }
            // https://www.openssl.org/docs/man3.0/man3/SSL_set1_host.html: 1 on success; an empty
            // name would switch the check off, which `init(_:)` rules out.
            guard SSL_set1_host(ssl, text) == 1 else {
                return HTTP2Error(.tlsFailed, "cannot require name \(text) in the server's certificate: SSL_set1_host refused it (\(openSSLErrors())); the connection was not made")
            }
        }
        return nil
    }
}
