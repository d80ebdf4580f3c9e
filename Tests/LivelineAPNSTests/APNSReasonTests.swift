import Foundation
import LivelineAPNS
import LivelineCore
import Testing

@Suite struct APNSReasonTests {
    @Test(arguments: APNSReason.table)
    func everyReasonMapsToItsStatusAndPolicy(_ entry: APNSReason.Entry) {
        let reason = APNSReason(rawValue: entry.reason.rawValue)
        #expect(reason.isKnown)
        #expect(reason.documentedStatus == entry.status)
        #expect(reason.policy(status: entry.status) == entry.policy)
        // The rejection a server would send for it reads back as the same verdict.
        let body = Array("{\"reason\":\"\(entry.reason.rawValue)\"}".utf8)
        let result = APNSResult.parse(status: entry.status, headers: [("apns-id", "x")], body: body)
        #expect(result == .rejected(.init(status: entry.status, reason: reason, apnsID: "x")))
    }

    @Test(arguments: ["BadDeviceToken", "DeviceTokenNotForTopic", "Unregistered", "ExpiredToken", "PayloadTooLarge", "Forbidden"])
    func deadEndsAreNeverRetried(_ name: String) {
        let reason = APNSReason(rawValue: name)
        #expect(reason.policy(status: reason.documentedStatus ?? 0) == .never)
        #expect(!APNSRetryPolicy.never.retries)
    }

    @Test(arguments: [("TooManyRequests", 429), ("InternalServerError", 500), ("ServiceUnavailable", 503)])
    func transientFailuresBackOff(_ name: String, _ status: Int) {
        #expect(APNSReason(rawValue: name).policy(status: status) == .backoff)
        #expect(APNSRetryPolicy.backoff.retries)
    }

    @Test func tokenReasonsHaveTheirOwnPolicies() {
        #expect(APNSReason.expiredProviderToken.policy(status: 403) == .renewToken)
        #expect(APNSReason.tooManyProviderTokenUpdates.policy(status: 429) == .slowTokenUpdates)
    }

    @Test func unknownReasonsKeepTheirTextAndGoByStatus() {
        let reason = APNSReason(rawValue: "SomethingNew")
        #expect(!reason.isKnown)
        #expect(reason.rawValue == "SomethingNew")
        #expect(reason.policy(status: 503) == .backoff)
        #expect(reason.policy(status: 429) == .backoff)
        #expect(reason.policy(status: 400) == .fixFirst)
    }

    @Test func tableHasNoDuplicates() {
        let names = APNSReason.table.map(\.reason.rawValue)
        #expect(Set(names).count == names.count)
    }

    @Test func unregisteredCarriesItsMillisecondTimestamp() {
        let result = APNSResult.parse(
            status: 410, headers: [("apns-id", "abc")], body: Array("{\"reason\":\"Unregistered\",\"timestamp\":1700000000123}".utf8))
        guard case .rejected(let rejection) = result else { Issue.record("not rejected: \(result)"); return }
        #expect(rejection.reason == .unregistered)
        #expect(rejection.timestamp == Date(timeIntervalSince1970: 1_700_000_000.123))
        #expect(rejection.policy == .never)
        #expect("\(result)".contains("timestamp=1700000000123"))
    }

    @Test func aTimestampBeyondInt64MillisecondsPrintsWithoutTrapping() {
        let result = APNSResult.parse(status: 410, headers: [], body: Array("{\"reason\":\"Unregistered\",\"timestamp\":1e300}".utf8))
        guard case .rejected(let rejection) = result else { Issue.record("not rejected: \(result)"); return }
        #expect(rejection.timestampMilliseconds == .max)
        #expect("\(result)" == "rejected 410 Unregistered apns-id=- timestamp=9223372036854775807")
        #expect(APNSResult.Rejection(status: 410, reason: .unregistered, apnsID: nil, timestamp: Date(timeIntervalSince1970: -1e300)).timestampMilliseconds == .min)
    }

    @Test func acceptedReadsTheIDs() {
        let result = APNSResult.parse(status: 200, headers: [("apns-id", "A"), ("apns-unique-id", "U")], body: [])
        #expect(result == .accepted(.init(apnsID: "A", uniqueID: "U")))
        #expect(result.isAccepted)
    }

    @Test func aRejectionWithoutJSONNamesTheStatus() {
        let result = APNSResult.parse(status: 502, headers: [], body: Array("<html>".utf8))
        guard case .rejected(let rejection) = result else { Issue.record("not rejected"); return }
        #expect(rejection.reason.rawValue == "HTTP502")
        #expect(rejection.policy == .backoff)
    }
}
