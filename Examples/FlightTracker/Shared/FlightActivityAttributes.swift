import Foundation
import LivelineCore

#if canImport(ActivityKit) && os(iOS)
import ActivityKit
#endif

/// The flight tracker's Live Activity, shared by the app, its widget extension and the backend.
///
/// The flight-tracker guide's `FlightActivityAttributes` (../shared/seeds/000_*.txt), property for
/// property: the same names, the same types, nothing added. Only the access level (`public`, as the
/// type lives in its own module here), `Sendable` on `ContentState` and the initializers are new;
/// none of them changes the JSON. The device decodes it with a default `JSONDecoder`: dates are
/// seconds since 2001, which the service converts to (the guide's backend sends Unix seconds, which
/// ActivityKit would read as 2055).
///
/// The type has no `livelineActivityID`: ActivityKit drops the key when it decodes the attributes
/// of a push-to-start, so the app finds an activity's logical id with `logicalID(attributes:)`,
/// from the flight number and day, the way the backend names it.
///
/// Module: FlightTrackerShared owns the attributes type the example's app, widget and backend
/// share. It imports LivelineCore only (and ActivityKit on iOS), so that it builds for the app:
/// it must never import the client, the simulator or the service.
public struct FlightActivityAttributes: LivelineCore.ActivityAttributes {
    public struct ContentState: Codable, Hashable, Sendable {
        public var flightStatus: String
        public var gateNumber: String
        public var boardingTime: Date
        public var delayMinutes: Int
        public var isBoarding: Bool

        public init(flightStatus: String, gateNumber: String, boardingTime: Date, delayMinutes: Int = 0, isBoarding: Bool = false) {
            self.flightStatus = flightStatus
            self.gateNumber = gateNumber
            self.boardingTime = boardingTime
            self.delayMinutes = delayMinutes
            self.isBoarding = isBoarding
        }
    }

    // Static data (doesn't change during the activity)
    public var flightNumber: String
    public var origin: String
    public var destination: String
    public var scheduledDeparture: Date
    public var airline: String

    public init(flightNumber: String, origin: String, destination: String, scheduledDeparture: Date, airline: String) {
        self.flightNumber = flightNumber
        self.origin = origin
        self.destination = destination
        self.scheduledDeparture = scheduledDeparture
        self.airline = airline
    }
}

extension FlightActivityAttributes {
    /// The type's schema, as `liveline serve` (schemaFiles), `lint` and `fixtures` take it.
    public static let schema = ActivitySchema(
        name: "FlightActivityAttributes",
        attributes: .object([
            .init("flightNumber", .string), .init("origin", .string), .init("destination", .string),
            .init("scheduledDeparture", .date), .init("airline", .string),
        ]),
        contentState: .object([
            .init("flightStatus", .string),
            .init("gateNumber", .string),
            .init("boardingTime", .date),
            .init("delayMinutes", .int),
            .init("isBoarding", .bool),
        ])
    )

    /// The logical activity id of a flight: `flight-GA2025-2026-12-03` (the flight number without
    /// spaces, the departure day in UTC). The backend starts the activity under it and the app
    /// finds it from the attributes alone.
    public static func logicalID(flightNumber: String, scheduledDeparture: Date) -> String {
        let day = scheduledDeparture.formatted(.iso8601.year().month().day())
        return "flight-\(flightNumber.filter { !$0.isWhitespace })-\(day)"
    }

    /// `logicalID(flightNumber:scheduledDeparture:)` from the attributes as the device encodes them
    /// (`scheduledDeparture` in seconds since 2001); nil when they are not this type's.
    public static func logicalID(attributes: JSONValue) -> String? {
        guard let number = attributes["flightNumber"]?.stringValue, let departure = attributes["scheduledDeparture"]?.numberValue else { return nil }
        return logicalID(flightNumber: number, scheduledDeparture: Date(timeIntervalSinceReferenceDate: departure))
    }

    /// The guide's flight: GA 2025, Bengaluru to Mumbai, GeekyAir.
    public static func example(scheduledDeparture: Date) -> FlightActivityAttributes {
        FlightActivityAttributes(flightNumber: "GA 2025", origin: "BLR", destination: "BOM", scheduledDeparture: scheduledDeparture, airline: "GeekyAir")
    }

    /// One step of the example's day: the start, then each update, as the backend sends them.
    public struct Step: Sendable, Hashable {
        public var name: String
        public var state: ContentState
    }

    /// The guide's day for a flight departing at `departure`: scheduled (boarding 45 minutes
    /// before departure, gate to be announced), the gate change with a 15-minute delay, boarding.
    /// The end follows with the last state.
    public static func story(departure: Date) -> [Step] {
        let boarding = departure.addingTimeInterval(-45 * 60)
        let late = boarding.addingTimeInterval(15 * 60)
        return [
            Step(name: "start", state: ContentState(flightStatus: "Scheduled", gateNumber: "TBD", boardingTime: boarding)),
            Step(name: "gate", state: ContentState(flightStatus: "Gate Changed", gateNumber: "B7", boardingTime: late, delayMinutes: 15)),
            Step(name: "boarding", state: ContentState(flightStatus: "Boarding Now", gateNumber: "B7", boardingTime: late, delayMinutes: 15, isBoarding: true)),
        ]
    }
}

#if canImport(ActivityKit) && os(iOS)
/// ActivityKit's protocol, satisfied by the same `ContentState` and stored properties.
extension FlightActivityAttributes: ActivityKit.ActivityAttributes {}
#endif
