import Foundation
import LivelineCore
import Testing
@testable import LivelineUI

@Suite struct UIPreviewTests {
    static let departure = FlightTemplateTests.departure
    static let utc = TimeZone(secondsFromGMT: 0)!

    @Test(arguments: 0..<FlightTemplateTests.states.count)
    func scratch(index: Int) throws {
        let state = FlightTemplateTests.states[index]
        let layout = FlightTemplate(timeZone: Self.utc).layout(attributes: FlightTemplateTests.attributes, state: state)
        let preview = UIPreview(now: Self.departure.addingTimeInterval(-2100), timeZone: Self.utc)
        print(preview.text(layout))
        print(UIPreview(width: 60, now: Self.departure.addingTimeInterval(-2100), timeZone: Self.utc).text(layout))
    }
}
