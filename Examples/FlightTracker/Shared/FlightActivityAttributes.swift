import Foundation
import LivelineCore

#if canImport(ActivityKit)
import ActivityKit
#endif

/// The flight tracker's Live Activity, shared by the app, its widget extension and the backend.
///
/// The same property names as the flight-tracker guide, and the same shape as LivelineCore's
/// built-in `FlightAttributes`. The device decodes it with a default `JSONDecoder` (dates as
/// seconds since 2001, a `nil` optional left out), which is how the synthesized `Codable` writes it.
///
/// Module: FlightTrackerShared owns the attributes type the example's app, widget and backend
/// share. It imports LivelineCore only (and ActivityKit on iOS), so that it builds for the app:
/// it must never import the client, the simulator or the service.
public struct FlightActivityAttributes: LivelineCore.ActivityAttributes {
    /// Where the flight stands, as shown on the Lock Screen.
    public enum Status: String, Codable, Hashable, Sendable, CaseIterable {
        case scheduled, delayed, boarding, departed, landed, cancelled
    }

    public struct ContentState: Codable, Hashable, Sendable {
        public var status: Status
        public var gate: String?
        public var boardingTime: Date
        public var delayMinutes: Int
        public var isBoarding: Bool

        public init(status: Status, gate: String?, boardingTime: Date, delayMinutes: Int = 0, isBoarding: Bool = false) {
            self.status = status
            self.gate = gate
            self.boardingTime = boardingTime
            self.delayMinutes = delayMinutes
            self.isBoarding = isBoarding
        }
    }

    public var flightNumber: String
    public var origin: String
    public var destination: String
    public var airline: String
    public var departure: Date
    /// The service's logical activity id (`ActivitySchema.activityIDKey`). The service puts it
    /// into every push-to-start; declared here so ActivityKit keeps it and LivelineKit can read it.
    public var livelineActivityID: String?

    public init(flightNumber: String, origin: String, destination: String, airline: String, departure: Date, livelineActivityID: String? = nil) {
        self.flightNumber = flightNumber
        self.origin = origin
        self.destination = destination
        self.airline = airline
        self.departure = departure
        self.livelineActivityID = livelineActivityID
    }
}

extension FlightActivityAttributes {
    /// The type's schema, as `liveline serve` (schemaFiles), `lint` and `fixtures` take it. The
    /// reserved `livelineActivityID` is not part of it: the service adds and checks it itself.
    public static let schema = ActivitySchema(
        name: "FlightActivityAttributes",
        attributes: .object([
            .init("flightNumber", .string), .init("origin", .string), .init("destination", .string),
            .init("airline", .string), .init("departure", .date),
        ]),
        contentState: .object([
            .init("status", .enumeration(Status.allCases.map(\.rawValue))),
            .init("gate", .optional(.string)),
            .init("boardingTime", .date),
            .init("delayMinutes", .int),
            .init("isBoarding", .bool),
        ])
    )

    /// LL 1234, Lisbon to Zurich, departing at `departure`.
    public static func example(departure: Date) -> FlightActivityAttributes {
        FlightActivityAttributes(flightNumber: "LL 1234", origin: "LIS", destination: "ZRH", airline: "Liveline Air", departure: departure)
    }

    /// One step of the example's day: the start, then each update, as the backend sends them.
    public struct Step: Sendable, Hashable {
        public var name: String
        public var state: ContentState
    }

    /// The backend's story for a flight departing at `departure`: the start (no gate yet), the
    /// gate, a 25-minute delay, boarding. The end follows with the last state.
    public static func story(departure: Date) -> [Step] {
        let boarding = departure.addingTimeInterval(-40 * 60)
        let late = boarding.addingTimeInterval(25 * 60)
        return [
            Step(name: "start", state: ContentState(status: .scheduled, gate: nil, boardingTime: boarding)),
            Step(name: "gate", state: ContentState(status: .scheduled, gate: "B12", boardingTime: boarding)),
            Step(name: "delay", state: ContentState(status: .delayed, gate: "B12", boardingTime: late, delayMinutes: 25)),
            Step(name: "boarding", state: ContentState(status: .boarding, gate: "B12", boardingTime: late, delayMinutes: 25, isBoarding: true)),
        ]
    }
}

#if canImport(ActivityKit)
/// ActivityKit's protocol, satisfied by the same `ContentState` and stored properties.
extension FlightActivityAttributes: ActivityKit.ActivityAttributes {}
#endif
