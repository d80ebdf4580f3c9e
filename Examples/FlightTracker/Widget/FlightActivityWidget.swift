// Deployment target: iOS 17.2 (Button(intent:) needs 17.0); built with the iOS 26 SDK.
#if canImport(ActivityKit) && os(iOS)
import ActivityKit
import FlightTrackerShared
import SwiftUI
import WidgetKit

@main
struct FlightWidgets: WidgetBundle {
    var body: some Widget { FlightActivityWidget() }
}

/// The guide's widget: the Lock Screen view and the Dynamic Island regions of `FlightActivityAttributes`.
struct FlightActivityWidget: Widget {
    var body: some WidgetConfiguration {
        ActivityConfiguration(for: FlightActivityAttributes.self) { context in
            // Lock Screen / Banner UI
            FlightLockScreenView(context: context)
                .activityBackgroundTint(Color.black.opacity(0.8))
                .activitySystemActionForegroundColor(Color.white)
        } dynamicIsland: { context in
            DynamicIsland {
                DynamicIslandExpandedRegion(.leading) {
                    Text(context.state.flightStatus).font(.caption)
                }
                DynamicIslandExpandedRegion(.trailing) {
                    Text("Gate \(context.state.gateNumber)").font(.caption).bold()
                }
                DynamicIslandExpandedRegion(.bottom) {
                    InteractiveLiveActivityView(context: context)
                }
            } compactLeading: {
                Image(systemName: "airplane")
                    .foregroundStyle(.blue)
            } compactTrailing: {
                Text(context.state.gateNumber)
                    .font(.caption2)
                    .bold()
            } minimal: {
                Image(systemName: context.state.isBoarding ? "airplane.departure" : "airplane")
                    .foregroundStyle(context.state.isBoarding ? .green : .blue)
            }
        }
    }
}

struct FlightLockScreenView: View {
    let context: ActivityViewContext<FlightActivityAttributes>

    var body: some View {
        VStack(spacing: 8) {
            HStack {
                VStack(alignment: .leading) {
                    Text(context.attributes.flightNumber)
                        .font(.headline)
                        .bold()
                    Text("\(context.attributes.origin) → \(context.attributes.destination)")
                        .font(.subheadline)
                }
                Spacer()
                Text(context.state.flightStatus).font(.caption).bold()
            }
            HStack {
                Label("Gate \(context.state.gateNumber)", systemImage: "door.right.hand.open")
                Spacer()
                Label(context.state.boardingTime.formatted(date: .omitted, time: .shortened), systemImage: "clock")
                Spacer()
                if context.state.delayMinutes > 0 {
                    Label("+\(context.state.delayMinutes)m", systemImage: "exclamationmark.triangle")
                        .foregroundStyle(.orange)
                }
            }
            InteractiveLiveActivityView(context: context)
        }
        .padding()
        .foregroundStyle(.white)
    }
}

/// The guide's two buttons. Their intents run in the app's process and report the tap to Liveline
/// under the activity's logical id.
struct InteractiveLiveActivityView: View {
    let context: ActivityViewContext<FlightActivityAttributes>

    var body: some View {
        let id = FlightActivityAttributes.logicalID(flightNumber: context.attributes.flightNumber, scheduledDeparture: context.attributes.scheduledDeparture)
        HStack(spacing: 12) {
            Button(intent: ViewBoardingPassIntent(activityId: id)) {
                Label("Boarding Pass", systemImage: "qrcode")
            }
            Button(intent: CheckInIntent(flightNumber: context.attributes.flightNumber, activityId: id)) {
                Label("Check In", systemImage: "checkmark.circle")
            }
        }
    }
}
#endif
