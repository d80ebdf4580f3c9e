import Foundation
@testable import LivelineFuzzTargets
import Testing

/// The simulator and service seeds reach past authentication: without it, mutating them would
/// only ever exercise the 403 path.
@Suite struct FuzzFixtureTests {
    static func seed(_ target: String, _ name: String) throws -> [UInt8] {
        try #require(FileManager.default.contents(atPath: FuzzSmokeTests.corpusRoot + "/\(target)/\(name)").map { Array($0) })
    }

    @Test func simulatorSeedsAreAccepted() throws {
        for name in ["alert", "start"] {
            let response = SimulatorFuzzFixture.shared.answer(try Self.seed("simulator", name))
            #expect(response.status == 200, "\(name): \(response.status) \(response.reason ?? "")")
        }
    }

    @Test func serviceSeedsAreAccepted() async throws {
        for name in ["health", "key", "device", "push-to-start"] {
            let response = await ServiceFuzzFixture.shared.answer(try Self.seed("service", name))
            #expect((200..<300).contains(response.status), "\(name): \(response.status) \(String(decoding: response.body, as: UTF8.self))")
        }
    }

    @Test func placeholdersAreReplacedAndTheRequestSplits() {
        let request = FuzzRequest(Array("PUT /v1/x/$A?q=1\nAuthorization: Bearer $A\nbad\n\n{\"k\":\"$A\"}\n\nrest".utf8), replacing: [("$A", "key")])
        #expect(request.method == "PUT")
        #expect(request.path == "/v1/x/key?q=1")
        #expect(request.headers.map(\.name) == ["Authorization", "bad"])
        #expect(request.headers.first?.value == "Bearer key")
        #expect(String(decoding: request.body, as: UTF8.self) == "{\"k\":\"key\"}\n\nrest")
    }
}
