#if canImport(ActivityKit) && canImport(SwiftUI) && canImport(WidgetKit)
import ActivityKit
import FlightTrackerShared
import SwiftUI
import WidgetKit

@main
struct FlightWidgets: WidgetBundle {
    var body: some Widget { FlightActivityWidget() }
}

/// The Lock Screen view and the Dynamic Island regions of `FlightActivityAttributes`.
struct FlightActivityWidget: Widget {
    var body: some WidgetConfiguration {
        ActivityConfiguration(for: FlightActivityAttributes.self) { context in
            FlightLockScreenView(attributes: context.attributes, state: context.state)
                .padding()
                .activityBackgroundTint(Color.black.opacity(0.85))
                .activitySystemActionForegroundColor(.white)
        } dynamicIsland: { context in
            DynamicIsland {
                DynamicIslandExpandedRegion(.leading) {
                    Text(context.attributes.origin).font(.title2.bold())
                }
                DynamicIslandExpandedRegion(.trailing) {
                    Text(context.attributes.destination).font(.title2.bold())
                }
                DynamicIslandExpandedRegion(.center) {
                    Text("\(context.attributes.flightNumber) · \(context.state.status.rawValue.capitalized)")
                }
                DynamicIslandExpandedRegion(.bottom) {
                    HStack {
                        Label(context.state.gate.map { "Gate \($0)" } ?? "Gate soon", systemImage: "door.left.hand.open")
                        Spacer()
                        Text(context.state.boardingTime, style: .time)
                    }
                    FlightButtons(activityID: context.attributes.livelineActivityID, isBoarding: context.state.isBoarding)
                }
            } compactLeading: {
                Image(systemName: "airplane")
            } compactTrailing: {
                Text(context.state.gate ?? "–").bold()
            } minimal: {
                Image(systemName: context.state.isBoarding ? "figure.walk" : "airplane")
            }
            .keylineTint(.orange)
        }
    }
}

struct FlightLockScreenView: View {
    let attributes: FlightActivityAttributes
    let state: FlightActivityAttributes.ContentState

    var body: some View {
        VStack(alignment: .leading, spacing: 8) {
            HStack {
                Text(attributes.airline).font(.caption).foregroundStyle(.secondary)
                Spacer()
                Text(attributes.flightNumber).font(.caption.bold())
            }
            HStack {
                Text(attributes.origin).font(.title.bold())
                Image(systemName: "airplane")
                Text(attributes.destination).font(.title.bold())
                Spacer()
                VStack(alignment: .trailing) {
                    Text(state.gate.map { "Gate \($0)" } ?? "Gate soon").font(.headline)
                    Text(state.delayMinutes > 0 ? "Delayed \(state.delayMinutes) min" : state.status.rawValue.capitalized)
                        .font(.caption).foregroundStyle(state.delayMinutes > 0 ? .orange : .secondary)
                }
            }
            HStack {
                Text("Boarding")
                Text(state.boardingTime, style: .time).bold()
                Spacer()
                FlightButtons(activityID: attributes.livelineActivityID, isBoarding: state.isBoarding)
            }
        }
        .foregroundStyle(.white)
    }
}

/// Check-in before boarding, the boarding pass once it starts.
struct FlightButtons: View {
    let activityID: String?
    let isBoarding: Bool

    var body: some View {
        if let activityID {
            if isBoarding {
                Button(intent: BoardingPassIntent(activityID: activityID)) { Label("Boarding pass", systemImage: "qrcode") }
            } else {
                Button(intent: CheckInIntent(activityID: activityID)) { Label("Check in", systemImage: "checkmark.circle") }
            }
        }
    }
}
#endif
