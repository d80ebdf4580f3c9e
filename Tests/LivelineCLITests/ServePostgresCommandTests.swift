import Foundation
import LivelineProcess
import LivelineTesting
import Testing

@Suite("liveline serve --database postgres://…", .enabled(if: TestPostgres.runs, "SKIPPED: no PostgreSQL test server (LIVELINE_TEST_POSTGRES_URL is unset): run through scripts/with-postgres.sh, as make test does (LIVELINE_REQUIRE_SERVERS=1 makes this a failure)"))
struct ServePostgresCommandTests {
    @Test("serve on a PostgreSQL URL prints it with the password as ***, writes the first admin key to --admin-key-file (0600, never stdout), and stops cleanly")
    func servesOnPostgres() async throws {
        let database = try TestPostgres.makeDatabase()
        defer { database.drop() }
        let password = "cli-pw-5e1d"
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let keyFile = dir.appendingPathComponent("admin.key").path
        let serve = try RunningProcess.start(CLI.binary.path, ["serve", "--port", "0", "--database", database.url(password: password), "--admin-key-file", keyFile])
        let out = try await serve.output(containing: "Ready.", within: .seconds(60))
        let key = try String(contentsOfFile: keyFile, encoding: .utf8)
        #expect(key.hasPrefix("ll_admin_"))
        #expect((try FileManager.default.attributesOfItem(atPath: keyFile)[.posixPermissions] as? Int) == 0o600)
        #expect(!out.contains("ll_admin_"), "the admin key reached standard output: \(out)")
        #expect(out.contains("Admin key: written to \(keyFile)"), "\(out)")
        serve.send(SIGTERM)
        let status = try await serve.exitStatus(within: .seconds(30))
        #expect(status == 0, "exit \(status): \(serve.standardOutput)")
        #expect(out.contains("Database: postgresql://liveline:***@/\(database.name)?host="), "\(out)")
        #expect(out.contains("(PostgreSQL)"))
        #expect(!out.contains(password))
    }

    @Test("a PostgreSQL database that cannot be reached stops the start, naming the URL without its password")
    func unreachable() async throws {
        let database = try TestPostgres.makeDatabase()
        defer { database.drop() }
        let password = "cli-pw-0a7b"
        let missing = database.url(password: password).replacingOccurrences(of: database.name, with: database.name + "_missing")
        let result = try await CLI.run(["serve", "--port", "0", "--database", missing])
        #expect(result.status == 1)
        #expect(result.stderr.contains("cannot start the service"), "\(result.stderr)")
        #expect(result.stderr.contains("postgresql://liveline:***@/\(database.name)_missing"), "\(result.stderr)")
        #expect(!result.stderr.contains(password) && !result.stdout.contains(password))
    }
}
