import COpenSSL
@testable import LivelineHTTP2
import Testing

@Suite("ServerName: the certificate name check fails closed")
struct ServerNameTests {
    /// Names OpenSSL would not check as given, by what is wrong with them (the NUL is not printable).
    static let uncheckable = ["empty": "", "NUL byte": "localhost\u{0}.example.com"]

    @Test("an empty name or one with a NUL byte is refused before any connection", arguments: [
        ("empty", "serverName is empty: OpenSSL would then check no name at all. Set it to a name the server's certificate covers, or leave it nil to verify the host name"),
        ("NUL byte", "the server name to verify contains a NUL byte: OpenSSL would check only the part before it"),
    ])
    func refused(problem: String, message: String) {
        #expect(throws: HTTP2Error(.invalidArgument, message)) { try ServerName(Self.uncheckable[problem]!) }
    }

    @Test("IP literals are checked as addresses, other names as DNS names")
    func kinds() throws {
        #expect(try ServerName("127.0.0.1").kind == .ipAddress)
        #expect(try ServerName("::1").kind == .ipAddress)
        #expect(try ServerName("api.push.apple.com").kind == .dnsName)
    }

    @Test("a DNS name is set as SNI and as the name to verify; an IP literal as the address to verify")
    func setsTheCheck() throws {
        try withSSL { ssl in
            #expect(try ServerName("api.push.apple.com").require(on: ssl) == nil)
            let host = try #require(X509_VERIFY_PARAM_get0_host(SSL_get0_param(ssl), 0))
            #expect(String(cString: host) == "api.push.apple.com")
            #expect(SSL_get_servername(ssl, TLSEXT_NAMETYPE_host_name).map { String(cString: $0) } == "api.push.apple.com")
        }
        try withSSL { ssl in
            #expect(try ServerName("127.0.0.1").require(on: ssl) == nil)
            let ip = try #require(X509_VERIFY_PARAM_get1_ip_asc(SSL_get0_param(ssl)))
            defer { liveline_OPENSSL_free(ip) }
            #expect(String(cString: ip) == "127.0.0.1")
        }
    }

    @Test("an IP literal OpenSSL refuses fails with tlsFailed instead of connecting without the check")
    func bogusIPLiteral() throws {
        try withSSL { ssl in
            let error = try #require(ServerName("999.0.0.1", kind: .ipAddress).require(on: ssl))
            #expect(error.code == .tlsFailed)
            #expect(error.message.hasPrefix("cannot require IP address 999.0.0.1 in the server's certificate: X509_VERIFY_PARAM_set1_ip_asc refused it ("))
            #expect(error.message.hasSuffix("); the connection was not made"))
        }
    }

    /// Calls `body` with a fresh client `SSL`.
    private func withSSL(_ body: (OpaquePointer) throws -> Void) throws {
        let context = try TLSContext.client(trust: .system, identity: nil)
        let ssl = try #require(SSL_new(context.context))
        defer { SSL_free(ssl) }
        try body(ssl)
    }
}
