import Foundation
import LivelineCore
import LivelineSimulator
import Testing

@Suite("The push log keeps what was sent: apns- headers, payload, alert (bounded, no JWT, tokens as prefixes)")
struct PushRecordSentTests {
    @Test("an accepted push-to-start: its headers as sent (no authorization), its payload whole, its alert, its priority and apns-id")
    func acceptedStart() throws {
        let f = Fixture()
        let token = try #require(f.app.pushToStartTokens["FlightAttributes"])
        var request = f.laRequest(token: token, body: f.startBody(input: 1), priority: 5)
        request.headers.append(.init("apns-id", "7C8D1E2F-0000-4000-8000-00000000AB12"))
        request.headers.append(.init("apns-expiration", "0"))
        #expect(f.send(request).status == 200)

        let record = try #require(f.sim.log().last)
        #expect(record.headers.map(\.name) == ["apns-push-type", "apns-topic", "apns-priority", "apns-id", "apns-expiration"])
        #expect(record.header("apns-priority") == "5")
        #expect(record.payload == request.body)
        #expect(record.payloadBytes == request.body.count && !record.payloadTruncated)
        #expect(record.alert == ["title": "Boarding", "body": "Gate B12"])

        let entry = try #require(f.sim.logJSON().arrayValue?.last)
        #expect(entry["payload"] == f.startBody(input: 1))
        #expect(entry["payloadBytes"] == .number(Double(request.body.count)))
        #expect(entry["payloadTruncated"] == nil && entry["payloadText"] == nil)
        #expect(entry["alert"]?["title"] == "Boarding")
        #expect(entry["priority"] == 5)
        #expect(entry["apnsID"] == "7c8d1e2f-0000-4000-8000-00000000ab12")
        #expect(entry["headers"]?.arrayValue?.contains(["name": "apns-expiration", "value": "0"]) == true)
        let text = f.sim.logJSON().jsonString
        #expect(!text.lowercased().contains("authorization") && !text.contains(f.jwt()), "the log keeps no JWT")
        #expect(!text.contains(token) && text.contains(String(token.prefix(8))), "the token appears as a prefix only")
    }

    @Test("a rejected push keeps what was sent too; a body past APNs' limit is cut to 5120 bytes and marked")
    func rejectedAndCut() throws {
        let f = Fixture()
        let big = #"{"aps":{"alert":""# + String(repeating: "x", count: 9000) + #""}}"#
        #expect(f.send(f.alertRequest { $0.body = Array(big.utf8) }).status == 413)
        _ = f.send(f.alertRequest { $0.body = Array("not json".utf8); $0.headers.append(.init("apns-priority", "7")) })

        let log = f.sim.log()
        #expect(log.count == 2)
        #expect(log[0].payload.count == PushRecord.payloadLimit && log[0].payloadBytes == big.utf8.count && log[0].payloadTruncated)
        #expect(log[0].payload == Array(big.utf8.prefix(PushRecord.payloadLimit)))
        #expect(log[0].alert == nil, "a cut payload is not parsed for its alert")
        let entries = try #require(f.sim.logJSON().arrayValue)
        #expect(entries[0]["reason"] == "PayloadTooLarge")
        #expect(entries[0]["payloadTruncated"] == true && entries[0]["payload"] == nil)
        #expect(entries[0]["payloadText"]?.stringValue?.utf8.count == PushRecord.payloadLimit)
        #expect(entries[1]["reason"] == "BadPriority")
        #expect(entries[1]["payloadText"] == "not json" && entries[1]["payload"] == nil)
        #expect(entries[1]["headers"]?.arrayValue?.last == ["name": "apns-priority", "value": "7"])
    }

    @Test("header values past 256 characters are cut, and at most 16 headers are kept")
    func headerBounds() throws {
        let f = Fixture()
        _ = f.send(f.alertRequest { r in
            r.headers.append(.init("apns-collapse-id", String(repeating: "c", count: 1000)))
            for n in 0..<30 { r.headers.append(.init("apns-x-\(n)", "v")) }
        })
        let record = try #require(f.sim.log().last)
        #expect(record.headers.count == PushRecord.headerLimit)
        #expect(record.header("apns-collapse-id")?.count == PushRecord.headerValueLimit)
    }
}
