/// Opens HTTP/2 connections with LivelineHTTP2 (pending the transport).
struct HTTP2PushConnector: PushConnector {
    func connect(to endpoint: Endpoint, timeouts: APNSConfiguration.Timeouts) async throws(WireError) -> any PushConnection {
        throw WireError(kind: .connectPermanent, message: "the HTTP/2 transport is not available yet")
    }
}
