import Foundation
import LivelineTesting
import Testing

/// The fault suite's short form: `liveline-bench faults --short`, one part per test, each a real
/// `liveline serve` process (or three) in front of the simulator over HTTP/2 + TLS, under seeded
/// faults. The command checks every row against the simulator's log and exits 1 on any miss; the
/// tests check that, and that each fault really happened.
@Suite("The fault suite (liveline-bench faults --short)", .serialized)
struct FaultSuiteTests {
    static func run(_ part: String) async throws -> CLI.Result {
        let result = try await CLI.bench(["faults", "--short", "--only", part])
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr.suffix(4000))")
        #expect(result.stdout.contains("faults: ok"), "\(result.stdout)")
        #expect(!result.stdout.contains("FAILED"), "\(result.stdout)")
        return result
    }

    /// The number printed before `label` in `text` ("… GOAWAY 7, …" → 7 for "GOAWAY").
    static func count(_ label: String, in text: String) -> Int? {
        guard let range = text.range(of: label + " ") else { return nil }
        return Int(text[range.upperBound...].prefix { $0.isNumber })
    }

    @Test("APNs faults (503, 429, GOAWAY, dropped connections, latency): every push final once, the log and the rows agree, duplicates within the window")
    func apnsFaults() async throws {
        let result = try await Self.run("apns")
        let line = try #require(result.stdout.split(separator: "\n").first { $0.contains("under faults:") }.map(String.init), "\(result.stdout)")
        for fault in ["GOAWAY", "dropped connection", "503", "429", "50 ms latency"] {
            let n = try #require(Self.count(fault, in: line), "\(line)")
            #expect(n > 0, "\(fault) never fired: \(line)")
        }
        #expect(result.stdout.contains("3000 rows: 3000 sent, 0 not final, 0 failed"), "\(result.stdout)")
        #expect(result.stdout.contains(" 0 lost, 0 apns-ids the simulator never gave"), "\(result.stdout)")
    }

    @Test("three instances on one PostgreSQL, one killed with SIGKILL and another restarted: every row ends once",
          .enabled(if: TestPostgres.runs, "SKIPPED: no PostgreSQL test server, so PostgreSQL's programs are taken as missing (LIVELINE_TEST_POSTGRES_URL is unset): run through scripts/with-postgres.sh, as make test does (LIVELINE_REQUIRE_SERVERS=1 runs it regardless)"))
    func instances() async throws {
        let result = try await Self.run("instances")
        #expect(result.stdout.contains("1500 rows: 1500 sent, 0 not final, 0 failed"), "\(result.stdout)")
        #expect(result.stdout.contains(" 0 phones without exactly one row, 0 lost"), "\(result.stdout)")
    }

    @Test("PostgreSQL stopped during a fan-out: the API answers 503 store-unavailable, nothing accepted is lost, the service recovers by itself",
          .enabled(if: TestPostgres.runs, "SKIPPED: no PostgreSQL test server, so PostgreSQL's programs are taken as missing (LIVELINE_TEST_POSTGRES_URL is unset): run through scripts/with-postgres.sh, as make test does (LIVELINE_REQUIRE_SERVERS=1 runs it regardless)"))
    func outage() async throws {
        let result = try await Self.run("outage")
        let line = try #require(result.stdout.split(separator: "\n").first { $0.hasPrefix("outage ") }.map(String.init), "\(result.stdout)")
        // "… for 0.3 s: 3× 503 meanwhile …": the 503s really happened while the server was down.
        let refused = line.range(of: "× 503").map { Int(line[..<$0.lowerBound].reversed().prefix { $0.isNumber }.reversed().map(String.init).joined()) ?? 0 } ?? 0
        #expect(refused >= 3, "\(line)")
        #expect(line.contains("the database is unavailable"), "\(line)")
        #expect(result.stdout.contains("1500 rows: 1500 sent, 0 not final, 0 failed"), "\(result.stdout)")
    }

    @Test("PostgreSQL killed with SIGKILL during a fan-out: crash recovery at its start, every answer given before the kill survives, nothing lost",
          .enabled(if: TestPostgres.runs, "SKIPPED: no PostgreSQL test server, so PostgreSQL's programs are taken as missing (LIVELINE_TEST_POSTGRES_URL is unset): run through scripts/with-postgres.sh, as make test does (LIVELINE_REQUIRE_SERVERS=1 runs it regardless)"))
    func crash() async throws {
        let result = try await Self.run("crash")
        let line = try #require(result.stdout.split(separator: "\n").first { $0.hasPrefix("crash ") }.map(String.init), "\(result.stdout)")
        #expect(line.contains("PostgreSQL killed (SIGKILL)"), "\(line)")
        #expect(line.contains("the database is unavailable"), "\(line)")
        #expect(result.stdout.contains("1500 rows: 1500 sent, 0 not final, 0 failed"), "\(result.stdout)")
        #expect(result.stdout.contains(" 0 phones without exactly one row, 0 lost"), "\(result.stdout)")
    }
}
