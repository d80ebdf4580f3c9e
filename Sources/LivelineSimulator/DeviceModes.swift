import Foundation
import LivelineCore

/// How a simulated iPhone misbehaves on purpose, to model failures a server can only infer.
///
/// - `forceQuit`: the user force-quit the app. APNs accepts a push-to-start (200) and the device
///   never displays it: Apple's known bug with force-quit apps. The push is logged as dropped
///   (`force-quit-start-not-shown`); updates to activities already running still apply.
/// - `withholdsUpdateTokens`: activities started on the device (by push or by the app) run and
///   show, but their update token never reaches the app (`pushTokenUpdates` never yields), as field
///   reports describe for push-started activities. The service sees a start that showed and can
///   never be updated through a token.
public struct DeviceModes: Sendable, Hashable, Codable {
    public var forceQuit: Bool
    public var withholdsUpdateTokens: Bool

    public init(forceQuit: Bool = false, withholdsUpdateTokens: Bool = false) {
        self.forceQuit = forceQuit
        self.withholdsUpdateTokens = withholdsUpdateTokens
    }

    /// `{"forceQuit": …, "withholdsUpdateTokens": …}`, as the control route and the inspection JSON write it.
    public var json: JSONValue { ["forceQuit": .bool(forceQuit), "withholdsUpdateTokens": .bool(withholdsUpdateTokens)] }
}

extension DropReason {
    /// A push-to-start APNs accepted for a force-quit app: never displayed (`DeviceModes.forceQuit`).
    public static let forceQuitStart = DropReason(rawValue: "force-quit-start-not-shown")
}

extension Simulator {
    /// Sets a device's modes (`DeviceModes`); they apply to the pushes that arrive from now on.
    public func setModes(_ modes: DeviceModes, on deviceID: String) throws(SimulatorError) {
        try state.withLock { s throws(SimulatorError) in
            guard s.devices[deviceID] != nil else { throw SimulatorError(.unknownDevice, "no device \"\(deviceID)\"") }
            s.devices[deviceID]!.modes = modes
            s.feed.publish(.device(deviceID))
        }
    }

    /// A device's modes, or nil for an unknown device.
    public func modes(of deviceID: String) -> DeviceModes? {
        state.withLock { $0.devices[deviceID]?.modes }
    }
}
