import Foundation
import LivelineProcess
import LivelineTesting
import Testing

@Suite("liveline serve and the demo through the service")
struct ServeCommandTests {
    @Test("usage mistakes exit 64 naming the setting and where it came from", arguments: [
        (["serve", "--port", "http"], "--port: port must be an integer from 0 to 65535, got 'http'"),
        (["serve", "--ca-file", "/etc/hostname"], "'--ca-file' goes with '--apns-host'"),
        (["serve", "--colour", "red"], "unknown option '--colour'"),
        (["serve", "--push-to-start-token-max-unseen-days", "-2"], "--push-to-start-token-max-unseen-days: pushToStartTokenMaxUnseenDays must be a number from 0 to 3650, got '-2'"),
        (["serve", "--start-shown-within", "soon"], "--start-shown-within: startShownWithinSeconds must be a number from 0.001 to 86400, got 'soon'"),
        (["serve", "--renewal-margin", "30"], "--renewal-margin: renewalMarginSeconds must be a number from 60 to 14400, got '30'"),
        (["serve", "--config", "/nonexistent/liveline.json"], "cannot read the configuration file '/nonexistent/liveline.json'"),
    ])
    func usage(_ args: [String], _ message: String) async throws {
        let result = try await CLI.run(args)
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(result.stderr.contains("hint: see 'liveline serve --help'"))
    }

    @Test("a configuration file with an unknown setting or a bad value is refused, naming the file and the setting")
    func configFile() async throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let bad = dir.appendingPathComponent("bad.json")
        try Data(#"{"port": 0, "maxInFlite": 10}"#.utf8).write(to: bad)
        let r1 = try await CLI.run(["serve", "--config", bad.path])
        #expect(r1.status == 64)
        #expect(r1.stderr.contains("unknown setting 'maxInFlite'"))
        let wrong = dir.appendingPathComponent("wrong.json")
        try Data(#"{"retryBaseSeconds": -1}"#.utf8).write(to: wrong)
        let r2 = try await CLI.run(["serve", "--config", wrong.path])
        #expect(r2.status == 64)
        #expect(r2.stderr.contains(wrong.path))
        #expect(r2.stderr.contains("retryBaseSeconds must be a number from 0.001 to 3600, got '-1'"))
    }

    @Test("--help lists the settings and the environment variables")
    func help() async throws {
        let result = try await CLI.run(["serve", "--help"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("LIVELINE_PORT"))
        #expect(result.stdout.contains("apnsHost"))
        // Token hygiene: the per-environment hosts and the push-to-start expiry, with what they do.
        #expect(result.stdout.contains("--apns-production-host") && result.stdout.contains("--apns-sandbox-host"))
        #expect(result.stdout.contains("--push-to-start-token-max-unseen-days") && result.stdout.contains("0: never; default 30"))
        #expect(result.stdout.contains("--start-shown-within <SECONDS>"))
        #expect(result.stdout.contains("--renewal-margin <SECONDS>") && result.stdout.contains("renewalMarginSeconds"))
        #expect(result.stdout.contains("startShownWithinSeconds"))
    }

    @Test("an idle service (outbox workers and webhook sender running) uses almost no CPU")
    func idleIsIdle() async throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let serve = try RunningProcess.start(CLI.binary.path, ["serve", "--port", "0", "--database", dir.appendingPathComponent("idle.db").path,
                                                               "--webhook-url", "http://127.0.0.1:9/hook"],
                                             environment: ProcessInfo.processInfo.environment.merging(["LIVELINE_WEBHOOK_SECRET": "idle-test-webhook-secret"]) { $1 },
                                             keepStandardError: true)
        _ = try await serve.output(containing: "Ready.", within: .seconds(60))
        func cpuTicks() -> Int {
            let stat = (try? String(contentsOfFile: "/proc/\(serve.processIdentifier)/stat", encoding: .utf8)) ?? ""
            let fields = stat.split(separator: ")").last?.split(separator: " ") ?? []
            return fields.count > 13 ? (Int(fields[11]) ?? 0) + (Int(fields[12]) ?? 0) : 0
        }
        let before = cpuTicks()
        // An observation window, not a wait for readiness: the workers wake once a second when idle.
        try await Task.sleep(for: .seconds(3))
        let used = cpuTicks() - before
        serve.send(SIGTERM)
        #expect(try await serve.exitStatus(within: .seconds(30)) == 0)
        // A loop that spins uses all 300 ticks (100 a second); an idle one a handful.
        #expect(used < 60, "an idle liveline serve used \(used) CPU ticks in 3 s")
    }

    @Test("a serve whose starter is gone (its parent watch reads end-of-file) stops as on SIGTERM")
    func stopsWithItsParent() async throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let serve = try RunningProcess.start(CLI.binary.path, ["serve", "--port", "0", "--database", dir.appendingPathComponent("orphan.db").path], keepStandardError: true)
        _ = try await serve.output(containing: "Ready.", within: .seconds(60))
        serve.releaseParentWatch()
        // Past the deadline the process is killed and the error says it kept running, with its output.
        let status = try await serve.exitStatus(within: .seconds(30))
        #expect(status == 0, "liveline serve exited with \(status) after its parent watch closed:\n\(serve.standardOutput)")
    }

    @Test("a database file that cannot be opened stops the start with its path")
    func badDatabase() async throws {
        let result = try await CLI.run(["serve", "--port", "0", "--database", "/nonexistent-dir/liveline.db"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("/nonexistent-dir/liveline.db"))
    }

    @Test("the demo runs the flight story through liveline serve and liveline simulator processes")
    func demoThroughService() async throws {
        let result = try await CLI.run(["demo"])
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        let out = result.stdout
        #expect(out.contains("service         http://127.0.0.1:"))
        // Two for the flight, one for the force-quit phone of scene 7.
        #expect(out.components(separatedBy: "push-to-start ").filter { $0.contains(": sent apns-id") }.count == 3)
        // Each phone was started on its OS's path, as the service and the phone both hold it.
        #expect(out.contains("service  iphone-16 (iOS 18.2) started on channel "), "\(out)")
        #expect(out.contains(" with input-push-channel, reachable without an update token; iphone-12 (iOS 17.5) started with input-push-token, reachable by its update token "), "\(out)")
        // A push-to-start APNs accepted for a force-quit app never shows; the service's status says why.
        let scene7 = out.components(separatedBy: "== 7.").last ?? ""
        #expect(scene7.contains("service  iphone-13 push-to-start ") && scene7.contains("device   iphone-13: APNs accepted it (200), and the Lock Screen shows nothing"), "\(out)")
        #expect(scene7.contains(": iphone-13 started, reachable false, reason start-never-shown: APNs accepted the push-to-start at "), "\(out)")
        #expect(scene7.contains("no update token or receipt came from the device within 2 s"), "\(out)")
        // Renewal past 8 hours, on a virtual clock: two successors, one activity shown after each, the landing at 20 hours (RenewalTests).
        let scene8 = out.components(separatedBy: "== 8.").last ?? ""
        #expect(scene8.contains("renewal 2: 1 successor push-started with the current content (departed); the phone shows 2"), "\(out)")
        #expect(scene8.contains("confirmed: generation 3; the predecessor ended with the same content; the phone shows 1"), "\(out)")
        #expect(scene8.contains("end: landed → the phone shows 1 activity, ended, landed") && !scene8.contains("FAILED"), "\(out)")
        #expect(out.contains("0 rejected, 1 dropped on a device"), "\(out)")
        #expect(out.contains("app      iphone-12: activity started; PUT /v1/activities/flight-LL1234-"))
        #expect(out.contains("app      iphone-16: activity started, subscribed to channel"))
        // The phones' apps run LivelineKit: they register themselves, and delete the token when the activity ends.
        // Each creates its installation with the (public) app key and binds its user with the backend's user token.
        #expect(out.contains("LivelineKit POST /v1/installations → inst_"))
        #expect(out.contains("with ana's user token, push-to-start token "))
        #expect(out.contains("app      iphone-12: activity ended; DELETE /v1/activities/flight-LL1234-"))
        #expect(!out.contains("app      iphone-16: activity ended"))  // it never had an update token
        // The backend repeats the start: refused, nothing duplicated on the phones (StartOnceTests).
        #expect(out.contains("start again (a retry) → 409 already-started: every phone holds it, nothing sent; still 2 activities on 2 phones"), "\(out)")
        // Each change goes out twice: once on the channel, once to the iOS 17 phone's token.
        #expect(out.components(separatedBy: "service  channel ").count - 1 == 5)
        #expect(out.components(separatedBy: "service  iphone-12 token ").count - 1 == 5)
        #expect(!out.contains(": failed") && !out.contains(": retrying"))
        let afterGate = out.components(separatedBy: "== 2.")[1].components(separatedBy: "== 3.")[0]
        #expect(afterGate.components(separatedBy: " C7 ").count - 1 == 2)  // both Lock Screens show the new gate
        #expect(out.contains("iphone-16 Lock Screen: ended"))
        #expect(out.contains("iphone-12 Lock Screen: ended"))
        #expect(out.contains("12 sent"))
        #expect(!out.contains("BEGIN PRIVATE KEY") && !out.contains("eyJ"))
        // A Lock Screen PNG per step (headless Chromium), in the folder the demo prints.
        let pngs = out.split(separator: "\n").filter { $0.hasPrefix("preview  /") && $0.hasSuffix("-lock-screen.png") }.map { String($0.dropFirst(9)) }
        #expect(pngs.count == 6 && pngs.allSatisfy { FileManager.default.contents(atPath: $0)?.starts(with: [0x89, 0x50, 0x4E, 0x47]) == true }, "\(out)")
        // Each step is drawn at its own moment of the story: boarding after boarding time, the landed
        // flight hours later (past the stale date the start set), the ended one later still and not stale.
        #expect(out.contains("preview  step 4 drawn 5 min after boarding time"), "\(out)")
        #expect(out.contains("preview  step 5 drawn 5 min after landing, stale"), "\(out)")
        #expect(out.contains("preview  step 6 drawn 30 min after landing, ended"), "\(out)")
        if pngs.count == 6 {
            let pages = (1...6).map { try? String(contentsOfFile: URL(fileURLWithPath: pngs[0]).deletingLastPathComponent().path + "/step-\($0).html", encoding: .utf8) }
            #expect(pages[4]?.contains("Boards in") == false && pages[4]?.contains(">Landed<") == true)  // no boarding countdown once landed
            #expect(FileManager.default.contents(atPath: pngs[4]) != FileManager.default.contents(atPath: pngs[5]))  // End differs from Landed
        }
    }
}
