import Foundation
import Testing

@Suite("The liveline command line")
struct CommandLineTests {
    /// Every command path, found by reading the group help texts, so new commands are covered too.
    static func allCommands() async throws -> [[String]] {
        var found: [[String]] = []
        var queue: [[String]] = [[]]
        while let path = queue.popLast() {
            let result = try await CLI.run(path + ["--help"])
            guard result.stdout.contains("COMMANDS:") else {
                found.append(path)
                continue
            }
            let section = result.stdout.components(separatedBy: "COMMANDS:\n")[1].components(separatedBy: "\n\n")[0]
            for line in section.split(separator: "\n") {
                if let word = line.split(separator: " ").first { queue.append(path + [String(word)]) }
            }
        }
        return found
    }

    @Test("every command has --help that exits 0 with a usage line and its options")
    func help() async throws {
        let commands = try await Self.allCommands()
        #expect(commands.contains(["payload"]) && commands.contains(["lint"]) && commands.contains(["demo"]) && commands.contains(["bench", "http2"]))
        for command in commands {
            let result = try await CLI.run(command + ["--help"])
            #expect(result.status == 0, "\(command)")
            // `liveline bench X` is `liveline-bench X`, whose help it prints.
            let usage = command.first == "bench" ? "liveline-bench " + command.dropFirst().joined(separator: " ") : "liveline " + command.joined(separator: " ")
            #expect(result.stdout.contains("USAGE: \(usage)"), "\(command): \(result.stdout)")
            #expect(result.stdout.contains("--help"), "\(command)")
        }
    }

    @Test("usage errors exit 64 with a one-line hint on stderr", arguments: [
        (["frobnicate"], "unknown command 'frobnicate'"),
        ([], "missing command"),
        (["payload"], "expected 1 argument, got none"),
        (["payload", "begin"], "unknown event 'begin'"),
        (["payload", "update", "--stale"], "unknown option '--stale' (did you mean '--stale-date'?)"),
        (["payload", "update", "--stale-date"], "'--stale-date' needs a value"),
        (["payload", "update", "--example", "flight", "--stale-date", "tomorrow"], "cannot read 'tomorrow' as a date"),
        (["payload", "update", "--example", "flight", "--timestamp", "1764424800000"], "looks like milliseconds"),
        (["payload", "update", "--example", "flight", "--priority", "7"], "'--priority' must be 10, 5 or 1, got 7"),
        (["payload", "update", "--example", "flight", "--relevance-score", "high"], "'--relevance-score' must be a finite number"),
        (["payload", "update", "--example", "flight", "--headers"], "'--headers' needs '--bundle-id'"),
        (["payload", "update", "--example", "flight", "--apns-id", "42"], "'--apns-id' must be a UUID"),
        (["payload", "update", "--example", "flight", "--custom", "novalue"], "'--custom' takes KEY=JSON"),
        (["payload", "start", "--example", "flight", "--input-push-token", "--input-push-channel", "abc"], "not both"),
        (["payload", "update", "--alert-loc-arg", "x"], "'--alert-loc-arg' needs '--alert-loc-key'"),
        (["lint"], "expected 1 argument, got none"),
    ])
    func usageErrors(args: [String], message: String) async throws {
        let result = try await CLI.run(args)
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix("error: ") && result.stderr.contains(message), "\(result.stderr)")
        #expect(result.stderr.contains("hint: see 'liveline"))
        #expect(result.stdout.isEmpty || args.isEmpty)
    }

    @Test("payload start prints a validated body that parses, and its size on stderr")
    func payloadStart() async throws {
        let result = try await CLI.run(["payload", "start", "--example", "flight", "--alert-title", "LL 1234", "--alert-body", "Tracking", "--input-push-token", "--timestamp", "1764424800"])
        #expect(result.status == 0, "\(result.stderr)")
        let body = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        let aps = try #require(body?["aps"] as? [String: Any])
        #expect(aps["event"] as? String == "start")
        #expect(aps["timestamp"] as? Int == 1_764_424_800)
        #expect(aps["attributes-type"] as? String == "FlightAttributes")
        #expect(aps["input-push-token"] as? Int == 1)
        #expect((aps["alert"] as? [String: String]) == ["title": "LL 1234", "body": "Tracking"])
        #expect(result.stderr.contains("ok: start body is \(result.stdout.utf8.count - 1) of 4096 bytes"))
    }

    @Test("payload errors exit 1 and name the problem")
    func payloadErrors() async throws {
        let noAlert = try await CLI.run(["payload", "start", "--example", "flight"])
        #expect(noAlert.status == 1)
        #expect(noAlert.stderr.contains("needs aps.alert"))
        let badState = try await CLI.run(["payload", "update", "--schema", "FlightAttributes", "--content-state", #"{"status":"late","gate":"C7","boardingTime":786117600,"delayMinutes":0,"isBoarding":false}"#])
        #expect(badState.status == 1)
        #expect(badState.stderr.contains("aps.content-state.status: \"late\" is not one of"))
        let badJSON = try await CLI.run(["payload", "update", "--content-state", "{\"gate\": }"])
        #expect(badJSON.status == 1)
        #expect(badJSON.stderr.contains("'--content-state': invalid JSON at line 1, column 10"))
        let missing = try await CLI.run(["payload", "update", "--content-state", "/nonexistent/state.json"])
        #expect(missing.stderr.contains("cannot read --content-state file '/nonexistent/state.json': no such file"))
        let late = try await CLI.run(["payload", "end", "--example", "flight", "--timestamp", "1764424800", "--dismissal", "1764450000"])
        #expect(late.status == 1)
        #expect(late.stderr.contains("hours after the end"))
        let long = try await CLI.run(["payload", "update", "--example", "flight", "--collapse-id", String(repeating: "c", count: 65)])
        #expect(long.stderr.contains("apns-collapse-id is 65 bytes; the limit is 64 bytes"))
    }

    @Test("payload warnings go to stderr and do not fail the command")
    func payloadWarnings() async throws {
        let result = try await CLI.run(["payload", "update", "--schema", "FlightAttributes", "--stale-date", "-5m", "--content-state",
                                  #"{"status":"delayed","gate":"C7","boardingTime":1764430000,"delayMinutes":5,"isBoarding":false}"#])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("warning: aps.content-state.boardingTime: 1764430000 looks like Unix seconds"))
        #expect(result.stderr.contains("warning: aps.stale-date:"))
    }

    @Test("--headers prints the request headers before the body")
    func headers() async throws {
        let result = try await CLI.run(["payload", "update", "--example", "flight", "--headers", "--bundle-id", "com.example.flights", "--priority", "5", "--collapse-id", "gate", "--expiration", "0"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(Array(lines.prefix(7)) == [
            ":method: POST", ":path: /3/device/<token>", "apns-push-type: liveactivity",
            "apns-topic: com.example.flights.push-type.liveactivity", "apns-priority: 5", "apns-expiration: 0", "apns-collapse-id: gate",
        ])
        #expect(lines[8].hasPrefix("{\"aps\":{"))
    }

    @Test("--apns-file writes an Xcode Simulator file with its target bundle")
    func apnsFile() async throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let result = try await CLI.run(["payload", "update", "--example", "flight", "--apns-file", "com.example.flights"], in: dir)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("wrote update.apns"))
        let data = try Data(contentsOf: dir.appendingPathComponent("update.apns"))
        let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        #expect(object?["Simulator Target Bundle"] as? String == "com.example.flights")
        #expect((object?["aps"] as? [String: Any])?["event"] as? String == "update")
    }

    @Test("a body file is read and the flags override it")
    func bodyFile() async throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("body.json")
        try Data(#"{"aps":{"timestamp":1764424800,"event":"update","content-state":{"gate":"B12"}},"deepLink":"/f/1"}"#.utf8).write(to: file)
        let result = try await CLI.run(["payload", "update", "--file", file.path, "--content-state", #"{"gate":"C7"}"#])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == #"{"aps":{"timestamp":1764424800,"event":"update","content-state":{"gate":"C7"}},"deepLink":"/f/1"}"# + "\n")
    }

    @Test("lint prints findings, exits 1 on errors and 0 on warnings only, reads stdin")
    func lint() async throws {
        let bad = #"{"aps":{"timestamp":1764424800,"event":"update","content-state":{"status":"delayed","gate":"C7","boarding_time":786117600,"delayMinutes":5,"isBoarding":false}}}"#
        let result = try await CLI.run(["lint", "-", "--schema", "FlightAttributes"], stdin: bad)
        #expect(result.status == 1)
        #expect(result.stdout.contains("error: aps.content-state.boardingTime: required key \"boardingTime\" is missing, but \"boarding_time\" is there"))
        #expect(result.stdout.contains("-: 1 error, 0 warnings"))
        let warn = #"{"aps":{"event":"update","content-state":{"gate":"C7"}}}"#
        let warned = try await CLI.run(["lint", "-"], stdin: warn)
        #expect(warned.status == 0)
        #expect(warned.stdout.contains("warning: aps.timestamp: missing"))
        let json = try await CLI.run(["lint", "-", "--json"], stdin: warn)
        let list = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: String]]
        #expect(list?.first?["code"] == "missing-timestamp")
        let notJSON = try await CLI.run(["lint", "-"], stdin: "{nope")
        #expect(notJSON.status == 1)
        #expect(notJSON.stderr.contains("'-': invalid JSON at line 1, column 2"))
    }

    @Test("lint refuses a body with a key twice, naming the key and both places")
    func lintDuplicateKey() async throws {
        let result = try await CLI.run(["lint", "-"], stdin: #"{"aps":{"event":"update","event":"end"}}"#)
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr == #"error: '-': invalid JSON at line 1, column 26: duplicate key "event" (first at line 1, column 9): APNs and the device may each read either value; keep one"# + "\n")
    }

    @Test("lint calls a timestamp that is no date between 2001 and 2100 an error, with no unit guess")
    func lintImplausibleTimestamp() async throws {
        let result = try await CLI.run(["lint", "-"], stdin: #"{"aps":{"timestamp":1.2e29,"event":"update","content-state":{"gate":"C7"}}}"#)
        #expect(result.status == 1)
        #expect(result.stdout == """
            error: aps.timestamp: 1.2e+29 is no date between 2001 and 2100, read as Unix seconds, Unix milliseconds or seconds since 2001; aps.timestamp is Unix seconds [implausible-date]
            -: 1 error, 0 warnings, 76 of 4096 bytes

            """)
    }

    @Test("lint reads a schema file and reports a broken one")
    func lintSchemaFile() async throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let schema = dir.appendingPathComponent("score.json")
        try Data(#"{"name":"ScoreAttributes","contentState":{"home":"int","away":"int","clock":"date"}}"#.utf8).write(to: schema)
        let body = #"{"aps":{"timestamp":1764424800,"event":"update","content-state":{"home":1,"away":"2","clock":1764424800000}}}"#
        let result = try await CLI.run(["lint", "-", "--schema", schema.path], stdin: body)
        #expect(result.status == 1)
        #expect(result.stdout.contains("error: aps.content-state.away: expected an integer, got string \"2\""))
        #expect(result.stdout.contains("warning: aps.content-state.clock: 1764424800000 looks like Unix milliseconds"))
        let broken = dir.appendingPathComponent("broken.json")
        try Data(#"{"name":"X","contentState":{"a":"integer"}}"#.utf8).write(to: broken)
        let failed = try await CLI.run(["lint", "-", "--schema", broken.path], stdin: body)
        #expect(failed.status == 1)
        #expect(failed.stderr.contains("schema file '\(broken.path)': contentState.a: unknown type \"integer\""))
    }

    @Test("--ui builds a Voltra push: uiJsonData that decodes back, VoltraAttributes on start")
    func uiPayload() async throws {
        let layout = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("docs/ui-boarding.json").path
        let start = try await CLI.run(["payload", "start", "--ui", layout, "--alert-title", "Boarding"])
        #expect(start.status == 0, "\(start.stderr)")
        let aps = try #require((try JSONSerialization.jsonObject(with: Data(start.stdout.utf8)) as? [String: Any])?["aps"] as? [String: Any])
        #expect(aps["attributes-type"] as? String == "VoltraAttributes")
        #expect((aps["attributes"] as? [String: String]) == ["name": "ui-boarding"])
        let ui = try #require((aps["content-state"] as? [String: String])?["uiJsonData"])
        let decoded = try await CLI.run(["ui", "decode", ui])
        #expect(decoded.status == 0, "\(decoded.stderr)")
        #expect(decoded.stdout.contains("lockScreen"))
        let both = try await CLI.run(["payload", "update", "--ui", layout, "--content-state", "{}"])
        #expect(both.status == 64)
        #expect(both.stderr.contains("give '--ui' or '--content-state', not both"))
    }

    @Test("the offline demo prints every push of the story, each within 4096 bytes and lint-clean")
    func demoOffline() async throws {
        let result = try await CLI.run(["demo", "--offline"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.components(separatedBy: "== ").count - 1 == 5)
        let sizes = result.stdout.components(separatedBy: "size: ").dropFirst().compactMap { Int($0.prefix { $0.isNumber }) }
        #expect(sizes.count == 5 && sizes.allSatisfy { $0 > 0 && $0 <= 4096 })
        #expect(result.stdout.components(separatedBy: "lint: clean").count - 1 == 5)
    }

    @Test("the in-process demo runs the story through the client and the simulator: every push accepted, the bad one dropped on the device")
    func demoEndToEnd() async throws {
        let result = try await CLI.run(["demo", "--in-process"])
        #expect(result.status == 0, "\(result.stderr)")
        let out = result.stdout
        #expect(out.components(separatedBy: "APNs     accepted").count - 1 == 6)
        #expect(out.contains("device   started FlightAttributes activity"))
        #expect(out.contains("device   issued update token"))
        #expect(out.components(separatedBy: "device   updated").count - 1 == 3)
        #expect(out.contains("device   ended; removal at"))
        #expect(out.contains("DROPPED (decoding-failed): keyNotFound: content-state.boardingTime is missing"))
        #expect(out.contains("simulator log: 5 applied, 1 accepted by APNs but dropped on the device"))
        // The device's view after the gate change shows the new gate.
        let afterGateChange = out.components(separatedBy: "== 2.")[1].components(separatedBy: "== 3.")[0].components(separatedBy: "Lock Screen")[1]
        #expect(afterGateChange.contains(" C7 ") && !afterGateChange.contains(" B12 "))
        let atStart = out.components(separatedBy: "== 1.")[1].components(separatedBy: "== 2.")[0].components(separatedBy: "Lock Screen")[1]
        #expect(atStart.contains(" B12 ") && !atStart.contains(" C7 "))
        // Secrets stay out: no JWT, no whole device token.
        #expect(!out.contains("eyJ"))
        #expect(!out.contains("bearer"))
    }

}
