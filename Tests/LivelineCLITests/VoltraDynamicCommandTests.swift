import Foundation
import LivelineCore
import Testing

@Suite("liveline payload and lint: Voltra Dynamic Live Activities (props-only content)")
struct VoltraDynamicCommandTests {
    static let schema = #"{"voltraDynamic": "order_finished", "props": {"orderNumber": "string", "status": "string", "etaMinutes": "int?"}}"#

    @Test("payload start --voltra-dynamic --props builds the generated type's start; lint checks the props against the declaration")
    func payloadAndLint() async throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let schemaFile = dir.appendingPathComponent("order_finished.json")
        try Data(Self.schema.utf8).write(to: schemaFile)
        let ok = try await CLI.run(["payload", "start", "--voltra-dynamic", "order_finished", "--props", #"{"orderNumber":"123","status":"Preparing"}"#,
                                    "--alert-title", "Order 123", "--schema", schemaFile.path, "--timestamp", "1764424800"])
        #expect(ok.status == 0, "\(ok.stderr)")
        let body = try JSONValue.parse(Array(ok.stdout.utf8))
        #expect(body["aps"]?["attributes-type"] == "VoltraOrderFinishedLiveActivityAttributes")
        #expect(body["aps"]?["attributes"] == ["name": "order_finished"])
        #expect(body["aps"]?["content-state"] == ["props": ["orderNumber": "123", "status": "Preparing"]])

        let bad = try await CLI.run(["payload", "update", "--props", #"{"orderNumber":123,"status":"Preparing","tip":1}"#, "--schema", schemaFile.path])
        #expect(bad.status == 1)
        #expect(bad.stderr.contains("aps.content-state.props.orderNumber: prop \"orderNumber\" must be a string"))
        #expect(bad.stderr.contains("[undeclared-prop]"))

        let both = try await CLI.run(["payload", "update", "--props", "{}", "--content-state", "{}"])
        #expect(both.status != 0)
        #expect(both.stderr.contains("give '--props', '--content-state' or '--ui', one of them"))
        let badID = try await CLI.run(["payload", "start", "--voltra-dynamic", "order-finished", "--props", "{}", "--alert-title", "x"])
        #expect(badID.status != 0)
        #expect(badID.stderr.contains("'--voltra-dynamic' takes a definition id"))

        // lint of an update body whose props lack a required prop.
        let bodyFile = dir.appendingPathComponent("update.json")
        try Data(#"{"aps":{"timestamp":1764424800,"event":"update","content-state":{"props":{"orderNumber":"123"}}}}"#.utf8).write(to: bodyFile)
        let lint = try await CLI.run(["lint", bodyFile.path, "--schema", schemaFile.path, "--now", "2025-11-29T14:00:00Z"])
        #expect(lint.status != 0)
        #expect((lint.stdout + lint.stderr).contains("[missing-prop]"))
    }
}
