import CEpoll
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// An IPv4 or IPv6 socket address, and the socket calls the transport makes with it.
struct SocketAddress: Sendable, CustomStringConvertible {
    private var storage = sockaddr_storage()
    private(set) var length: socklen_t = 0

    /// The address family (`AF_INET` or `AF_INET6`).
    var family: Int32 { Int32(storage.ss_family) }

    /// Resolves `host` (a name or a literal) to addresses for TCP `port`, in resolver order.
    static func resolve(host: String, port: Int) throws(HTTP2Error) -> [SocketAddress] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_ADDRCONFIG
        var result: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &result)
        guard status == 0, let first = result else {
            throw HTTP2Error(.resolveFailed, "cannot resolve host \(host): \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(first) }
        var addresses: [SocketAddress] = []
        var cursor: UnsafeMutablePointer<addrinfo>? = first
        while let info = cursor {
            if let address = info.pointee.ai_addr {
                var item = SocketAddress()
                withUnsafeMutableBytes(of: &item.storage) { raw in
                    raw.copyMemory(from: UnsafeRawBufferPointer(start: address, count: Int(info.pointee.ai_addrlen)))
                }
                item.length = info.pointee.ai_addrlen
                addresses.append(item)
            }
            cursor = info.pointee.ai_next
        }
        guard !addresses.isEmpty else { throw HTTP2Error(.resolveFailed, "host \(host) resolved to no address") }
        return addresses
    }

    /// An empty address, filled in by the calls below.
    init() {}

    /// A numeric IPv4 (`127.0.0.1`) or IPv6 (`::1`) address and a port, parsed with `inet_pton`
    /// (no resolver); nil for anything else, names included.
    init?(numericHost host: String, port: Int) {
        guard (0...65535).contains(port) else { return nil }
        var v4 = sockaddr_in()
        var v6 = sockaddr_in6()
        if inet_pton(AF_INET, host, &v4.sin_addr) == 1 {
            v4.sin_family = sa_family_t(AF_INET)
            v4.sin_port = in_port_t(UInt16(port).bigEndian)
            withUnsafeBytes(of: &v4) { raw in withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: raw) } }
            length = socklen_t(MemoryLayout<sockaddr_in>.size)
        } else if inet_pton(AF_INET6, host, &v6.sin6_addr) == 1 {
            v6.sin6_family = sa_family_t(AF_INET6)
            v6.sin6_port = in_port_t(UInt16(port).bigEndian)
            withUnsafeBytes(of: &v6) { raw in withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: raw) } }
            length = socklen_t(MemoryLayout<sockaddr_in6>.size)
        } else {
            return nil
        }
    }

    /// Reads the local address of `fd`.
    static func local(of fd: Int32) -> SocketAddress {
        var item = SocketAddress()
        item.length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &item.storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &item.length) }
        }
        return item
    }

    /// Reads the peer address of `fd`.
    static func peer(of fd: Int32) -> SocketAddress {
        var item = SocketAddress()
        item.length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &item.storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(fd, $0, &item.length) }
        }
        return item
    }

    /// The port.
    var port: Int {
        withUnsafeBytes(of: storage) { raw in
            if family == AF_INET6 {
                return Int(UInt16(bigEndian: raw.load(fromByteOffset: MemoryLayout<sockaddr_in6>.offset(of: \sockaddr_in6.sin6_port)!, as: UInt16.self)))
            }
            return Int(UInt16(bigEndian: raw.load(fromByteOffset: MemoryLayout<sockaddr_in>.offset(of: \sockaddr_in.sin_port)!, as: UInt16.self)))
        }
    }

    /// `1.2.3.4:port` or `[::1]:port`.
    var description: String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        var copy = storage
        let text: String = withUnsafePointer(to: &copy) { pointer in
            pointer.withMemoryRebound(to: UInt8.self, capacity: MemoryLayout<sockaddr_storage>.size) { bytes in
                let offset = family == AF_INET6
                    ? MemoryLayout<sockaddr_in6>.offset(of: \sockaddr_in6.sin6_addr)!
                    : MemoryLayout<sockaddr_in>.offset(of: \sockaddr_in.sin_addr)!
                guard inet_ntop(family, bytes + offset, &buffer, socklen_t(buffer.count)) != nil else { return "?" }
                return buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            }
        }
        return family == AF_INET6 ? "[\(text)]:\(port)" : "\(text):\(port)"
    }

    /// Calls `body` with the address as a `sockaddr` pointer.
    func withSockaddr<R>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> R) -> R {
        var copy = storage
        return withUnsafePointer(to: &copy) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, length) }
        }
    }

    /// Whether `host` is an IPv4 or IPv6 literal (no SNI for those; verification by IP).
    static func isIPLiteral(_ host: String) -> Bool {
        var v4 = in_addr()
        var v6 = in6_addr()
        return inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1
    }
}
