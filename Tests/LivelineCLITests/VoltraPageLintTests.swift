import Foundation
import LivelineCore
import LivelineProcess
import LivelineTesting
import LivelineUI
import Testing

/// Voltra's page shows `uiJsonData` as plain JSON text; its extension decodes only base64 brotli
/// (renderLiveActivityToString's output), so the device drops those pushes: lint says so.
@Suite("liveline lint decodes uiJsonData as Voltra's extension does")
struct VoltraPageLintTests {
    static func body(_ uiJsonData: String) -> JSONValue {
        ["aps": ["event": "update", "content-state": ["uiJsonData": .string(uiJsonData)], "timestamp": 1764145755]]
    }

    static func lint(_ body: JSONValue) async throws -> ProcessOutput {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("voltra-page-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data(body.serialized()).write(to: file)
        return try await ProcessRunner.run(BuiltProduct.path("liveline"), ["lint", file.path, "--now", "2025-11-26T08:29:15Z"])
    }

    @Test("the page's update payload (plain JSON text) is an error naming uiJsonData; an encoded layout passes")
    func pagePayload() async throws {
        let page = #"{"lockScreen":{"type":"VStack","children":{"type":"Text","children":"Hello","props":{}},"props":{}}}"#
        let refused = try await Self.lint(Self.body(page))
        #expect(refused.status == 1, "\(refused.stdoutText)")
        #expect(refused.stdoutText.contains("aps.content-state.uiJsonData"), "\(refused.stdoutText)")
        #expect(refused.stdoutText.contains("[invalid-ui]"), "\(refused.stdoutText)")

        let layout = try JSONValue.parse(Array(page.utf8))
        let encoded = try VoltraPayload.contentState(layoutJSON: layout.serialized(), mode: .fanOut)
        let text: String = try #require(encoded["uiJsonData"]?.stringValue)
        let accepted = try await Self.lint(Self.body(text))
        #expect(!accepted.stdoutText.contains("[invalid-ui]"), "\(accepted.stdoutText)")
    }
}
