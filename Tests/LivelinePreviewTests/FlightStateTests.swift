import Foundation
import LivelineCore
import LivelineUI
import Testing
@testable import LivelinePreview

/// What the flight template shows in each state of the flight, stale and ended: the information
/// must fit the state (no boarding countdown after departure, no "Boarding now" after landing).
@Suite struct FlightStateTests {
    static let utc = TimeZone(secondsFromGMT: 0)!
    static let departure = Fixtures.departure
    static let boarding = departure.addingTimeInterval(-40 * 60)

    /// A state of LL 1234 drawn at `at` (by default 75 minutes before boarding).
    static func draw(_ status: FlightAttributes.Status, isBoarding: Bool = false, delay: Int = 0, stale: Bool = false, ended: Bool = false,
                     at: Date? = nil) throws -> PreviewDocument {
        let state = FlightAttributes.ContentState(status: status, gate: "C7", boardingTime: boarding, delayMinutes: delay, isBoarding: isBoarding)
        return try ActivityPreview.document(attributesType: "FlightAttributes", attributes: try JSONValue(encoding: Fixtures.attributes),
                                            contentState: try JSONValue(encoding: state),
                                            options: PreviewOptions(at: at ?? boarding.addingTimeInterval(-75 * 60), timeZone: utc, stale: stale, ended: ended))
    }

    static func all(_ document: PreviewDocument) -> String { document.fragments.values.joined() }

    @Test("a waiting flight counts down to boarding with hours, as iOS does (1:15:00, not 75:00)",
          arguments: [(FlightAttributes.Status.scheduled, "Scheduled"), (.delayed, "Delayed 25 min")])
    func waiting(status: FlightAttributes.Status, headline: String) throws {
        let document = try Self.draw(status, delay: status == .delayed ? 25 : 0)
        let lock = try #require(document.fragments[.lockScreen])
        #expect(lock.contains(">\(headline)<") && lock.contains(">Boards in 1:15:00<") && lock.contains(">BOARDING<"))
        #expect(document.fragments[.islandExpanded]?.contains(">Boards in 1:15:00<") == true)
        // Compact trailing shows the time itself, not a "Boards…" cut short.
        let compact = try #require(document.fragments[.islandCompact])
        #expect(compact.contains(">1:15:00<") && !compact.contains("Boards"), "\(compact)")
        #expect(!Self.all(document).contains(">Boarding now<") && !Self.all(document).contains(FlightTemplate.staleText))
        // Once boarding time passes without a boarding push, the countdown's completed text shows.
        let late = try Self.draw(status, at: Self.boarding.addingTimeInterval(60))
        #expect(late.fragments[.lockScreen]?.contains(">Boarding now<") == true)
    }

    @Test("a boarding flight shows boarding at its gate and no countdown, by status or by the flag",
          arguments: [(FlightAttributes.Status.boarding, false), (.scheduled, true), (.delayed, true)])
    func boarding(status: FlightAttributes.Status, flag: Bool) throws {
        let document = try Self.draw(status, isBoarding: flag)
        let lock = try #require(document.fragments[.lockScreen])
        #expect(lock.contains(">Boarding<") && lock.contains("data-symbol=\"figure.walk\""))
        #expect(document.fragments[.islandExpanded]?.contains(">Boarding at gate C7<") == true)
        #expect(document.fragments[.islandCompact]?.contains(">C7<") == true)
        #expect(!Self.all(document).contains("Boards in") && !Self.all(document).contains("Boarding now") && !Self.all(document).contains("ll-timer"))
    }

    @Test("after departure, landing or cancellation there is no boarding countdown and no \"Boarding now\", even with the flag left on",
          arguments: [(FlightAttributes.Status.departed, "Departed", "On the way to ZRH"), (.landed, "Landed", "Landed in ZRH"),
                      (.cancelled, "Cancelled", "Flight cancelled")])
    func afterBoarding(status: FlightAttributes.Status, headline: String, bottom: String) throws {
        for flag in [false, true] {
            for at in [Self.boarding.addingTimeInterval(-3600), Self.departure.addingTimeInterval(3 * 3600)] {
                let document = try Self.draw(status, isBoarding: flag, at: at)
                let all = Self.all(document)
                #expect(!all.contains("Boards in") && !all.contains("Boarding now") && !all.contains("figure.walk"), "\(status) \(flag)")
                #expect(!all.contains(">Boarding<"), "\(status) \(flag)")
                #expect(document.fragments[.lockScreen]?.contains(">\(headline)<") == true)
                #expect(document.fragments[.islandExpanded]?.contains(">\(bottom)<") == true)
                // No timer anywhere: nothing of the picture counts.
                #expect(!all.contains("ll-timer"), "\(status)")
            }
        }
        let lock = try #require(try Self.draw(status).fragments[.lockScreen])
        if status == .cancelled {
            #expect(lock.contains(">Not departing<") && !lock.contains(">DEPARTED<"))
        } else {
            #expect(lock.contains(">DEPARTED<") && lock.contains(">09:00<") && !lock.contains(">BOARDING<"))
        }
    }

    @Test("compact trailing names the destination in the air and marks a cancellation")
    func compactAfterBoarding() throws {
        #expect(try Self.draw(.departed).fragments[.islandCompact]?.contains(">ZRH<") == true)
        #expect(try Self.draw(.landed).fragments[.islandCompact]?.contains(">ZRH<") == true)
        #expect(try Self.draw(.cancelled).fragments[.islandCompact]?.contains("data-symbol=\"xmark.circle.fill\"") == true)
    }

    @Test("a stale activity says its information may be out of date, on the Lock Screen and the expanded Island",
          arguments: FlightAttributes.Status.allCases)
    func stale(status: FlightAttributes.Status) throws {
        let fresh = try Self.draw(status)
        let stale = try Self.draw(status, stale: true)
        #expect(!Self.all(fresh).contains(FlightTemplate.staleText))
        #expect(stale.fragments[.lockScreen]?.contains(">\(FlightTemplate.staleText)<") == true)
        #expect(stale.fragments[.islandExpanded]?.contains(">\(FlightTemplate.staleText)<") == true)
        #expect(stale.fragments[.lockScreen] != fresh.fragments[.lockScreen])
    }

    @Test("an ended activity is drawn on the Lock Screen only: iOS removes it from the Dynamic Island")
    func ended() throws {
        let document = try Self.draw(.landed, ended: true)
        #expect(document.boxes.map(\.presentation) == [.lockScreen])
        #expect(document.fragments.keys.sorted { $0.rawValue < $1.rawValue } == [.lockScreen])
        #expect(document.html.contains("ended: on the Lock Screen until dismissed"))
        #expect(!document.html.contains("data-ll-box=\"island-"))
    }

    @Test("the Island is never greyed: stale or not, its box is black with no opacity or filter")
    func islandNotGreyed() throws {
        for stale in [false, true] {
            let document = try Self.draw(.delayed, delay: 25, stale: stale)
            for presentation in [Presentation.islandCompact, .islandMinimal, .islandExpanded] {
                let fragment = try #require(document.fragments[presentation])
                #expect(document.box(presentation)?.background == "#000000")
                #expect(!fragment.contains("opacity:") && !fragment.contains("filter:") && !fragment.contains("grayscale"))
            }
        }
        #expect(!Stylesheet.css.contains("ll-is-stale .ll-island") && !Stylesheet.css.contains("grayscale"))
    }
}
