import CEpoll
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Socket calls shared by client and server.
enum Socket {
    /// A non-blocking, close-on-exec TCP socket for `family`.
    static func makeNonBlocking(family: Int32) throws(HTTP2Error) -> Int32 {
        let fd = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw HTTP2Error(.internalError, "socket() failed: \(errnoString())") }
        return fd
    }

    /// Disables Nagle's algorithm (HTTP/2 batches its own writes).
    static func setNoDelay(_ fd: Int32) {
        var one: Int32 = 1
        _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
    }

    /// Makes the next `close` send a TCP RST instead of a FIN (an abrupt drop).
    static func setLingerZero(_ fd: Int32) {
        var value = linger(l_onoff: 1, l_linger: 0)
        _ = setsockopt(fd, SOL_SOCKET, SO_LINGER, &value, socklen_t(MemoryLayout<linger>.size))
    }

    /// The pending error of a socket after a non-blocking connect (0 when connected).
    static func pendingError(_ fd: Int32) -> Int32 {
        var value: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        _ = getsockopt(fd, SOL_SOCKET, SO_ERROR, &value, &length)
        return value
    }

    /// A non-blocking listening socket bound to `host:port` (port 0 lets the kernel choose).
    ///
    /// A numeric address is used as given; a name is resolved on a thread of its own, waiting at
    /// most `resolveTimeout` (`SocketAddress.listenAddresses`).
    /// - Throws: `HTTP2Error` `.invalidArgument` for a bad port, `.resolveFailed` for a name that
    ///   does not resolve in time, `.listenFailed` when no address can be bound.
    static func listen(host: String, port: Int, backlog: Int32 = 1024, resolveTimeout: Duration = .seconds(5),
                       resolver: @escaping SocketAddress.Resolver = SocketAddress.systemResolver) throws(HTTP2Error) -> (fd: Int32, address: SocketAddress) {
        guard (0...65535).contains(port) else { throw HTTP2Error(.invalidArgument, "port \(port) is outside 0...65535") }
        let addresses = try SocketAddress.listenAddresses(host: host, port: port, within: resolveTimeout, resolver: resolver)
        var lastError = ""
        for address in addresses {
            let fd = try makeNonBlocking(family: address.family)
            var one: Int32 = 1
            _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
            let bound = address.withSockaddr { bind(fd, $0, $1) }
            if bound == 0 && Glibc.listen(fd, backlog) == 0 {
                return (fd, SocketAddress.local(of: fd))
            }
            lastError = "\(address): \(errnoString())"
            close(fd)
        }
        throw HTTP2Error(.listenFailed, "cannot listen on \(host):\(port): \(lastError)")
    }
}
