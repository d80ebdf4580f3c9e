import Foundation
import LivelineCore

/// The flight tracker's UI: status, gate, boarding time (a live countdown and the clock time),
/// delay and boarding flag, on the lock screen and in every Dynamic Island region.
///
/// What it shows follows the flight's phase: a "Boards in" countdown only while the flight waits
/// to board (scheduled or delayed); "Boarding" only while it boards; after departure, landing or
/// cancellation neither. A stale activity (`isStale`) says its information may be out of date.
public struct FlightTemplate: LiveActivityTemplate {
    /// The time zone boarding times are printed in.
    public var timeZone: TimeZone

    /// A template printing times in `timeZone` (the departure airport's, typically).
    public init(timeZone: TimeZone = TimeZone(identifier: "Europe/Lisbon") ?? TimeZone(secondsFromGMT: 0)!) { self.timeZone = timeZone }

    static let background: Color = "#0B1220"
    static let primary: Color = "#F8FAFC"
    static let secondary: Color = "#94A3B8"
    static let accent: Color = "#38BDF8"
    static let warning: Color = "#F59E0B"

    /// Where the flight stands, from its status and boarding flag: a `boarding` status or the flag
    /// on a waiting flight means boarding; departure, landing and cancellation win over the flag.
    public enum Phase: Sendable, Equatable {
        case waiting, boarding, departed, landed, cancelled
    }

    public static func phase(_ state: FlightAttributes.ContentState) -> Phase {
        switch state.status {
        case .cancelled: .cancelled
        case .landed: .landed
        case .departed: .departed
        case .boarding: .boarding
        case .scheduled, .delayed: state.isBoarding ? .boarding : .waiting
        }
    }

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
        switch phase(state) {
        case .boarding: "Boarding"
        case .waiting: state.status == .delayed ? "Delayed \(state.delayMinutes) min" : "Scheduled"
        default: state.status.rawValue.capitalized
        }
    }

    /// The sentence a stale activity shows (iOS draws nothing of its own for staleness).
    public static let staleText = "May be out of date"

    /// The layout of an activity that is not stale.
    public func layout(attributes: FlightAttributes, state: FlightAttributes.ContentState) -> UILayout {
        layout(attributes: attributes, state: state, isStale: false)
    }

    /// The layout as the widget draws it with `context.isStale`.
    public func layout(attributes: FlightAttributes, state: FlightAttributes.ContentState, isStale: Bool) -> UILayout {
        let caption = Style().fontSize(11).foregroundColor(Self.secondary).fontWeight(.semibold)
        let value = Style().fontSize(17).foregroundColor(Self.primary).fontWeight(.bold)
        let code = Style().fontSize(28).foregroundColor(Self.primary).fontWeight(.heavy)
        let phase = Self.phase(state)
        let gate = state.gate ?? "—"
        let status = phase == .boarding ? FlightAttributes.Status.boarding : state.status
        let statusColor = isStale ? Self.secondary : Self.statusColor(status)
        let departs = attributes.departure.addingTimeInterval(TimeInterval(state.delayMinutes * 60))

        func field(_ title: String, _ content: some NodeView) -> VStack {
            VStack(alignment: .leading, spacing: 2) {
                Text(title).style(caption)
                content.style(value)
            }
        }
        func countdown(_ running: String?) -> Timer {
            Timer(end: state.boardingTime, direction: .down, running: running.map { "\($0) {time}" }, completed: "Boarding now", showHours: true)
        }
        func staleNote() -> HStack {
            HStack(spacing: 4) {
                Symbol("exclamationmark.triangle", size: 12, tint: Self.warning)
                Text(Self.staleText).fontSize(11).fontWeight(.semibold).foregroundColor(Self.warning)
            }
        }
        // The time field: boarding while the flight has not left, departure once it has, none when cancelled.
        func timeField() -> VStack {
            switch phase {
            case .waiting, .boarding: field("BOARDING", Text(state.boardingTime, timeZone: timeZone))
            case .departed, .landed: field("DEPARTED", Text(departs, timeZone: timeZone))
            case .cancelled: field("BOARDING", Text("—"))
            }
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
                        Symbol(phase == .landed ? "airplane.arrival" : phase == .departed ? "airplane.departure" : "airplane",
                               size: 18, tint: Self.secondary)
                        Spacer()
                        Text(attributes.destination).style(code)
                    }
                    HStack(spacing: 16) {
                        field("GATE", Text(gate))
                        timeField()
                        if state.delayMinutes > 0 && phase != .cancelled {
                            field("DELAY", Text("+\(state.delayMinutes) min").foregroundColor(Self.statusColor(.delayed)))
                        }
                        Spacer()
                        switch phase {
                        case .waiting: countdown("Boards in").style(caption)
                        case .boarding: Label("Boarding", systemImage: "figure.walk").foregroundColor(Self.statusColor(.boarding)).fontWeight(.bold)
                        case .departed: Text("On the way to \(attributes.destination)").style(caption)
                        case .landed: Text("Arrived in \(attributes.destination)").style(caption)
                        case .cancelled: Text("Not departing").fontSize(11).fontWeight(.semibold).foregroundColor(Self.statusColor(.cancelled))
                        }
                    }
                    if isStale { staleNote() }
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
                    switch phase {
                    case .waiting, .boarding: Text(state.boardingTime, timeZone: timeZone).style(caption)
                    case .departed, .landed: Text(departs, timeZone: timeZone).style(caption)
                    case .cancelled: Text("—").style(caption)
                    }
                }
            }
            ExpandedCenter {
                Text(Self.statusText(state)).fontSize(13).fontWeight(.bold).foregroundColor(statusColor)
            }
            ExpandedBottom {
                VStack(alignment: .leading, spacing: 4) {
                    HStack(spacing: 8) {
                        Symbol("airplane", tint: Self.accent)
                        switch phase {
                        case .waiting: countdown("Boards in").style(value)
                        case .boarding: Text("Boarding at gate \(gate)").style(value)
                        case .departed: Text("On the way to \(attributes.destination)").style(value)
                        case .landed: Text("Landed in \(attributes.destination)").style(value)
                        case .cancelled: Text("Flight cancelled").style(value)
                        }
                    }
                    if isStale { staleNote() }
                }
            }
            CompactLeading {
                Symbol("airplane", tint: Self.accent)
            }
            CompactTrailing {
                switch phase {
                case .waiting: countdown(nil).fontSize(12).fontWeight(.semibold).foregroundColor(statusColor)
                case .boarding: Text(gate).style(value)
                case .departed, .landed: Text(attributes.destination).fontSize(15).fontWeight(.bold).foregroundColor(statusColor)
                case .cancelled: Symbol("xmark.circle.fill", tint: Self.statusColor(.cancelled))
                }
            }
            Minimal(keylineTint: Self.accent) {
                Symbol("airplane", tint: Self.accent)
            }
        }
    }
}
