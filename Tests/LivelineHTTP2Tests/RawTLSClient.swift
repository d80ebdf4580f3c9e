import COpenSSL
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A blocking TCP connection to 127.0.0.1, for peers that misbehave below HTTP/2 (a client that
/// finishes TLS and says nothing, one that never starts TLS, one that floods).
///
/// Thread confinement: one thread reads or writes at a time; `shutdown()` may be called from
/// another thread to end a blocked call. That is what makes `@unchecked Sendable` sound.
final class RawTLSClient: @unchecked Sendable {
    let fd: Int32
    private var context: OpaquePointer?
    private var ssl: OpaquePointer?

    /// Connects over TCP only (no TLS yet); reads give up after `receiveTimeout`.
    init(port: Int, receiveTimeout: Duration = .seconds(10)) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw RawTLSError("socket: \(String(cString: strerror(errno)))") }
        var timeout = timeval(tv_sec: Int(receiveTimeout.components.seconds), tv_usec: 0)
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            Glibc.close(fd)
            throw RawTLSError("connect: \(String(cString: strerror(errno)))")
        }
    }

    deinit {
        if let ssl { SSL_free(ssl) }
        if let context { SSL_CTX_free(context) }
        Glibc.close(fd)
    }

    /// Runs the TLS handshake offering ALPN `h2` (the server's certificate is not checked).
    func handshake() throws {
        guard let context = SSL_CTX_new(TLS_client_method()) else { throw RawTLSError("SSL_CTX_new failed") }
        self.context = context
        let alpn: [UInt8] = [2, UInt8(ascii: "h"), UInt8(ascii: "2")]
        _ = SSL_CTX_set_alpn_protos(context, alpn, UInt32(alpn.count))
        guard let ssl = SSL_new(context) else { throw RawTLSError("SSL_new failed") }
        self.ssl = ssl
        SSL_set_fd(ssl, fd)
        ERR_clear_error()
        guard SSL_connect(ssl) == 1 else { throw RawTLSError("TLS handshake failed") }
    }

    /// Writes all of `bytes` over TLS; false once the connection is broken.
    func write(_ bytes: [UInt8]) -> Bool {
        guard let ssl else { return false }
        ERR_clear_error()
        return bytes.withUnsafeBytes { SSL_write(ssl, $0.baseAddress, Int32($0.count)) } == Int32(bytes.count)
    }

    /// Reads until the server closes the connection (true) or the receive timeout passes
    /// (false), with the bytes received (decrypted once TLS is up).
    func readUntilClosed() -> (bytes: [UInt8], closed: Bool) {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            if let ssl {
                ERR_clear_error()
                let count = buffer.withUnsafeMutableBytes { SSL_read(ssl, $0.baseAddress, Int32($0.count)) }
                if count > 0 {
                    received += buffer[..<Int(count)]
                    continue
                }
                let code = SSL_get_error(ssl, count)
                let timedOut = code == SSL_ERROR_SYSCALL && (errno == EAGAIN || errno == EWOULDBLOCK)
                return (received, !timedOut)
            }
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                received += buffer[..<count]
                continue
            }
            return (received, !(count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)))
        }
    }

    /// Ends blocked reads and writes from any thread.
    func shutdown() {
        _ = Glibc.shutdown(fd, Int32(SHUT_RDWR))
    }

    /// The HTTP/2 connection preface and an empty SETTINGS frame.
    static let preface: [UInt8] = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8) + [0, 0, 0, 4, 0, 0, 0, 0, 0]

    /// The frames in `bytes`, as (type, flags, stream ID, payload).
    static func frames(_ bytes: [UInt8]) -> [(type: UInt8, flags: UInt8, streamID: UInt32, payload: [UInt8])] {
        var frames: [(type: UInt8, flags: UInt8, streamID: UInt32, payload: [UInt8])] = []
        var offset = 0
        while offset + 9 <= bytes.count {
            let length = Int(bytes[offset]) << 16 | Int(bytes[offset + 1]) << 8 | Int(bytes[offset + 2])
            let streamID = UInt32(bytes[offset + 5] & 0x7f) << 24 | UInt32(bytes[offset + 6]) << 16 | UInt32(bytes[offset + 7]) << 8 | UInt32(bytes[offset + 8])
            guard offset + 9 + length <= bytes.count else { break }
            frames.append((bytes[offset + 3], bytes[offset + 4], streamID, Array(bytes[(offset + 9)..<(offset + 9 + length)])))
            offset += 9 + length
        }
        return frames
    }
}

struct RawTLSError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Runs blocking `work` on a thread of its own, off the concurrency pool.
func onOwnThread<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { (continuation: CheckedContinuation<T, Never>) in
        Thread {
            // A write after the server closed (or after `shutdown()`) must fail with EPIPE, not
            // raise SIGPIPE, which ends the test process.
            var pipeSignal = sigset_t()
            sigemptyset(&pipeSignal)
            sigaddset(&pipeSignal, SIGPIPE)
            pthread_sigmask(SIG_BLOCK, &pipeSignal, nil)
            continuation.resume(returning: work())
        }.start()
    }
}
