import Foundation
import LivelineCore

/// The flight tracker's UI: status, gate, boarding time (a live countdown and the clock time),
/// delay and boarding flag, on the lock screen and in every Dynamic Island region.
public struct FlightTemplate: LiveActivityTemplate {
    /// The time zone boarding times are printed in.
    public var timeZone: TimeZone

    /// A template printing times in `timeZone` (the departure airport's, typically).
    public init(timeZone: TimeZone = TimeZone(identifier: "Europe/Lisbon") ?? TimeZone(secondsFromGMT: 0)!) { self.timeZone = timeZone }

    static let background: Color = "#0B1220"
    static let primary: Color = "#F8FAFC"
    static let secondary: Color = "#94A3B8"
    static let accent: Color = "#38BDF8"

    static func statusColor(_ status: FlightAttributes.Status) -> Color {
        switch status {
        case .scheduled: "#94A3B8"
        case .delayed: "#F59E0B"
        case .boarding: "#22C55E"
        case .departed, .landed: "#38BDF8"
        case .cancelled: "#EF4444"
        }
    }

    static func statusText(_ state: FlightAttributes.ContentState) -> String {
        switch state.status {
        case .delayed: "Delayed \(state.delayMinutes) min"
        default: state.status.rawValue.capitalized
        }
    }

    public func layout(attributes: FlightAttributes, state: FlightAttributes.ContentState) -> UILayout {
        let caption = Style().fontSize(11).foregroundColor(Self.secondary).fontWeight(.semibold)
        let value = Style().fontSize(17).foregroundColor(Self.primary).fontWeight(.bold)
        let code = Style().fontSize(28).foregroundColor(Self.primary).fontWeight(.heavy)
        let gate = state.gate ?? "—"
        let statusColor = Self.statusColor(state.status)
        let clock = Text(state.boardingTime, timeZone: timeZone)

        func field(_ title: String, _ content: some NodeView) -> VStack {
            VStack(alignment: .leading, spacing: 2) {
                Text(title).style(caption)
                content.style(value)
            }
        }
        func countdown() -> Timer {
            Timer(end: state.boardingTime, direction: .down, running: "Boards in {time}", completed: "Boarding now")
        }

        return UILayout {
            LockScreen(backgroundTint: Self.background) {
                VStack(alignment: .leading, spacing: 10) {
                    HStack(spacing: 6) {
                        Symbol("airplane", tint: Self.accent)
                        Text("\(attributes.flightNumber) · \(attributes.airline)").style(caption)
                        Spacer()
                        Text(Self.statusText(state)).fontSize(13).fontWeight(.bold).foregroundColor(statusColor)
                    }
                    HStack(spacing: 8) {
                        Text(attributes.origin).style(code)
                        Spacer()
                        Symbol("airplane", size: 18, tint: Self.secondary)
                        Spacer()
                        Text(attributes.destination).style(code)
                    }
                    HStack(spacing: 16) {
                        field("GATE", Text(gate))
                        field("BOARDING", clock)
                        if state.delayMinutes > 0 {
                            field("DELAY", Text("+\(state.delayMinutes) min").foregroundColor(Self.statusColor(.delayed)))
                        }
                        Spacer()
                        if state.isBoarding {
                            Label("Boarding", systemImage: "figure.walk").foregroundColor(Self.statusColor(.boarding)).fontWeight(.bold)
                        } else {
                            countdown().style(caption)
                        }
                    }
                }
                .padding(16)
            }
            ExpandedLeading {
                VStack(alignment: .leading, spacing: 2) {
                    Text(attributes.origin).style(value)
                    Text("GATE \(gate)").style(caption)
                }
            }
            ExpandedTrailing {
                VStack(alignment: .trailing, spacing: 2) {
                    Text(attributes.destination).style(value)
                    clock.style(caption)
                }
            }
            ExpandedCenter {
                Text(Self.statusText(state)).fontSize(13).fontWeight(.bold).foregroundColor(statusColor)
            }
            ExpandedBottom {
                HStack(spacing: 8) {
                    Symbol("airplane", tint: Self.accent)
                    if state.isBoarding {
                        Text("Boarding at gate \(gate)").style(value)
                    } else {
                        countdown().style(value)
                    }
                }
            }
            CompactLeading {
                Symbol("airplane", tint: Self.accent)
            }
            CompactTrailing {
                if state.isBoarding { Text(gate).style(value) } else { countdown().style(caption) }
            }
            Minimal(keylineTint: Self.accent) {
                Symbol("airplane", tint: Self.accent)
            }
        }
    }
}
