import Foundation

/// The running example: a flight tracker's Live Activity.
///
/// Static: flight number, route, airline, departure. Dynamic: status, gate, boarding time, delay,
/// boarding flag. Used by the tests, the demo and the previews.
public struct FlightAttributes: ActivityAttributes {
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
    /// The service's logical activity id (`ActivitySchema.activityIDKey`), which the service puts into
    /// every push-to-start. Declared, so that ActivityKit keeps it when it decodes the attributes (a
    /// type that does not declare it loses it on the device).
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

extension FlightAttributes {
    /// The schema of `FlightAttributes`, built in so `liveline lint` and the simulator know it.
    public static let schema = ActivitySchema(
        name: "FlightAttributes",
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

    /// LL 1234, Lisbon to Zurich, departing at `departure`: the demo's flight.
    public static func example(departure: Date) -> FlightAttributes {
        FlightAttributes(flightNumber: "LL 1234", origin: "LIS", destination: "ZRH", airline: "Liveline Air", departure: departure)
    }
}
