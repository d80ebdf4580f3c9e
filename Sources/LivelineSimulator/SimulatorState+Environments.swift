import Foundation

/// APNs' two hosts: a simulator may listen as both (`SimulatorServer.start(environment:)`), and
/// each connection answers as the host it reached. A token belongs to its device's environment;
/// the other host does not know it and answers 400 `BadDeviceToken` (docs/apns-protocol.md).
extension SimulatorState {
    /// The environment of the host `connection` reached.
    func hostEnvironment(_ connection: ConnectionState) -> APNSEnvironment {
        connection.environment ?? config.environment
    }
}
