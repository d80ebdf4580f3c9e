import Foundation

/// One change in a simulator, as it happens: what a dashboard or a test subscribes to instead of
/// polling `log()` and `events()`.
public enum SimulatorChange: Sendable {
    /// A push was answered (accepted, rejected, or dropped on every device); `activities` are the
    /// activities it reached, as they were right after it.
    case push(PushRecord, activities: [ActivitySnapshot])
    /// A token or activity-state event (`Simulator.events()` gets it too).
    case event(SimulatorEvent)
    /// A device was added (or its apps changed through the control API).
    case device(String)
    /// Someone tapped a button or toggle in a Live Activity (`SimulatorControl`).
    case interaction(SimulatorInteraction)
    /// Someone opened a link of a Live Activity (`SimulatorControl`).
    case link(SimulatorLinkOpen)
    /// The clock was moved on to this moment (`SimulatorControl`).
    case clock(Date)
}
