import LivelineHTTP2

/// The error `SimulatorServer.start` throws, re-exported so that a package depending on the
/// `LivelineSimulator` product can name it: the HTTP/2 layer (LivelineHTTP2) is not a product.
public typealias HTTP2Error = LivelineHTTP2.HTTP2Error
