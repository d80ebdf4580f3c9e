import Foundation
import Testing
@testable import LivelineCore

@Suite("PushRequest headers")
struct PushRequestTests {
    /// Every combination of the optional headers, each priority and both expiration forms.
    static var requests: [PushRequest] {
        var all: [PushRequest] = []
        for priority in [nil] + Priority.allCases {
            for expiration in [nil, .immediately, .at(Date(timeIntervalSince1970: 1_800_000_000))] as [Expiration?] {
                for collapseID in [nil, "flight-1234"] {
                    for apnsID in [nil, UUID(uuidString: "9F0D3C3E-1B2A-4C5D-8E7F-0123456789AB")] {
                        all.append(PushRequest(
                            pushType: .liveActivity, topic: "com.example.flights.push-type.liveactivity", priority: priority,
                            expiration: expiration, collapseID: collapseID, apnsID: apnsID, body: ["aps": [:]]))
                    }
                }
            }
        }
        return all
    }

    @Test("headers come in the documented order with the documented values", arguments: requests)
    func headers(request: PushRequest) {
        var expected = [("apns-push-type", "liveactivity"), ("apns-topic", "com.example.flights.push-type.liveactivity")]
        if let priority = request.priority { expected.append(("apns-priority", String(priority.rawValue))) }
        if let expiration = request.expiration { expected.append(("apns-expiration", expiration.headerValue)) }
        if let collapseID = request.collapseID { expected.append(("apns-collapse-id", collapseID)) }
        if let apnsID = request.apnsID { expected.append(("apns-id", apnsID.uuidString.lowercased())) }
        let actual = request.headers
        #expect(actual.map(\.name) == expected.map(\.0))
        #expect(actual.map(\.value) == expected.map(\.1))
    }
}
