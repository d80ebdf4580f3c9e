import Foundation
import LivelineCore
import Testing

@Suite("liveline ui and liveline-bench ui")
struct UICommandTests {
    /// The wire-format notes' §1.8 examples 1 and 2: the JSON form, and the payload v1 JSON Voltra's renderer emits.
    static let specExamples: [(name: String, form: String, json: String)] = [
        ("hello", #"{"lockScreen":{"type":"Text","children":"Hello, world!"}}"#, #"{"v":1,"ls":{"t":0,"c":"Hello, world!"}}"#),
        ("ride", """
            {"lockScreen": {"type": "VStack", "props": {"style": {"padding": 16, "borderRadius": 18, "backgroundColor": "#101828"}},
              "children": [
                {"type": "Symbol", "props": {"name": "car.fill", "type": "hierarchical", "scale": "large", "tintColor": "#38BDF8"}},
                {"type": "Text", "props": {"style": {"color": "#F8FAFC", "fontSize": 18, "fontWeight": "600"}}, "children": "Driver arrived"},
                {"type": "Text", "props": {"style": {"color": "#94A3B8", "fontSize": 12, "marginTop": 8}}, "children": "Ready for pickup"}
              ]}}
            """,
         ##"{"v":1,"ls":{"t":11,"c":[{"t":4,"p":{"n":"car.fill","typ":"hierarchical","sc":"large","tc":"#38BDF8"}},{"t":0,"c":"Driver arrived","p":{"s":0}},{"t":0,"c":"Ready for pickup","p":{"s":1}}],"p":{"s":2}},"s":[{"c":"#F8FAFC","fs":18,"fw":"600"},{"c":"#94A3B8","fs":12,"mt":8},{"pad":16,"br":18,"bg":"#101828"}]}"##),
    ]
    /// The seed string of the notes (§2.2): example 1 compressed by Voltra's server.
    static let helloBase64 = "ixOAeyJ2IjoxLCJscyI6eyJ0IjowLCJjIjoiSGVsbG8sIHdvcmxkISJ9fQM="

    /// A layout in the canonical JSON form (key order as `ui decode` prints it), every region kind.
    static let canonical = """
        {"lockScreen": {"content": {"type": "VStack", "props": {"alignment": "leading", "spacing": 6, "style": {"padding": 16}},
            "children": [{"type": "Text", "id": "title", "props": {"style": {"fontSize": 20, "color": "#F8FAFC"}}, "children": "Gate B12"},
                         {"type": "LinearProgressView", "props": {"value": 0.4, "tintColor": "#22C55E"}},
                         {"type": "Timer", "props": {"endAtMs": 1767256200000, "direction": "down"}}]},
          "activityBackgroundTint": "#0B1220"},
         "island": {"keylineTint": "#38BDF8",
          "expanded": {"center": {"type": "Text", "children": "Boarding"}, "bottom": {"type": "Text", "children": "Gate B12"}},
          "compact": {"leading": {"type": "Symbol", "props": {"name": "airplane"}}, "trailing": {"type": "Text", "children": "B12"}},
          "minimal": {"type": "Symbol", "props": {"name": "airplane"}}}}
        """

    /// Writes `text` to `name` in a fresh directory; returns the directory (to remove) and the file path.
    static func file(_ name: String, _ text: String) throws -> (dir: URL, path: String) {
        let dir = try CLI.temporaryDirectory()
        let url = dir.appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return (dir, url.path)
    }

    @Test("encode prints a string that decode turns back into the same JSON form", arguments: [[], ["--compat"]])
    func roundTrip(flags: [String]) async throws {
        let (dir, path) = try Self.file("layout.json", Self.canonical)
        defer { try? FileManager.default.removeItem(at: dir) }
        let encoded = try await CLI.run(["ui", "encode", path] + flags)
        #expect(encoded.status == 0, "\(encoded.stderr)")
        let string = encoded.stdout.trimmingCharacters(in: .newlines)
        #expect(!string.isEmpty && !string.contains("\n") && Data(base64Encoded: string) != nil)
        let mode = flags.isEmpty ? "compact" : "compatible"
        #expect(encoded.stderr.hasPrefix("\(mode): \(string.utf8.count) of 3345 bytes of base64"), "\(encoded.stderr)")
        let decoded = try await CLI.run(["ui", "decode", string])
        #expect(decoded.status == 0, "\(decoded.stderr)")
        #expect(decoded.stderr.isEmpty)
        #expect(try JSONValue.parse(decoded.stdout) == JSONValue.parse(Self.canonical))
        // The same string from a file and from stdin.
        let stringFile = dir.appendingPathComponent("ui.txt")
        try Data((string + "\n").utf8).write(to: stringFile)
        #expect(try await CLI.run(["ui", "decode", stringFile.path]).stdout == decoded.stdout)
        #expect(try await CLI.run(["ui", "decode", "-"], stdin: string).stdout == decoded.stdout)
    }

    @Test("--compat output is byte-identical to Voltra's, from a file and from stdin")
    func compatMatchesTheSpecVector() async throws {
        let (dir, path) = try Self.file("hello.json", Self.specExamples[0].form)
        defer { try? FileManager.default.removeItem(at: dir) }
        let fromFile = try await CLI.run(["ui", "encode", path, "--compat"])
        #expect(fromFile.status == 0, "\(fromFile.stderr)")
        #expect(fromFile.stdout == Self.helloBase64 + "\n")
        #expect(fromFile.stderr.contains("compatible: 60 of 3345 bytes of base64 (2%)"))
        let fromStdin = try await CLI.run(["ui", "encode", "-", "--compat"], stdin: Self.specExamples[0].form)
        #expect(fromStdin.stdout == Self.helloBase64 + "\n")
    }

    @Test("--json prints the payload v1 JSON", arguments: specExamples.map { ($0.name, $0.form, $0.json) })
    func json(name: String, form: String, json: String) async throws {
        let (dir, path) = try Self.file("\(name).json", form)
        defer { try? FileManager.default.removeItem(at: dir) }
        let compat = try await CLI.run(["ui", "encode", path, "--compat", "--json"])
        #expect(compat.status == 0, "\(compat.stderr)")
        #expect(compat.stdout == json + "\n")
        // Compact mode prints v1 JSON too, and it decodes to the same tree as the reference JSON.
        let compact = try await CLI.run(["ui", "encode", path, "--json"])
        #expect(compact.status == 0, "\(compact.stderr)")
        #expect(try JSONValue.parse(compact.stdout)["v"] == 1)
        let ours = try await CLI.run(["ui", "decode", "-"], stdin: compact.stdout)
        let theirs = try await CLI.run(["ui", "decode", "-"], stdin: json)
        #expect(ours.status == 0 && theirs.status == 0, "\(ours.stderr) \(theirs.stderr)")
        #expect(ours.stdout == theirs.stdout)
        #expect(try JSONValue.parse(theirs.stdout) == JSONValue.parse(form))
    }

    @Test("decode --wire prints the v1 JSON; decode reads a whole APNs body")
    func decodeForms() async throws {
        let wire = try await CLI.run(["ui", "decode", Self.helloBase64, "--wire"])
        #expect(wire.status == 0, "\(wire.stderr)")
        #expect(try JSONValue.parse(wire.stdout) == JSONValue.parse(Self.specExamples[0].json))
        let body = #"{"aps":{"event":"update","content-state":{"uiJsonData":"\#(Self.helloBase64)"}}}"#
        let fromBody = try await CLI.run(["ui", "decode", "-"], stdin: body)
        #expect(fromBody.status == 0, "\(fromBody.stderr)")
        #expect(try JSONValue.parse(fromBody.stdout) == JSONValue.parse(Self.specExamples[0].form))
    }

    @Test("size prints both modes and the bytes of every region")
    func size() async throws {
        let (dir, path) = try Self.file("layout.json", Self.canonical)
        defer { try? FileManager.default.removeItem(at: dir) }
        let result = try await CLI.run(["ui", "size", path])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("compact: ") == true)
        #expect(lines.dropFirst().first?.hasPrefix("compatible: ") == true)
        for key in ["ls", "isl_exp_c", "isl_exp_b", "isl_cmp_l", "isl_cmp_t", "isl_min", "s"] {
            let row = try #require(lines.first { $0.hasPrefix(key + " ") }, "no row for \(key) in \(result.stdout)")
            let numbers = row.split(separator: " ").dropFirst().compactMap { Int($0) }
            #expect(numbers.count == 2 && numbers.allSatisfy { $0 > 0 }, "\(row)")
        }
        #expect(!lines.contains { $0.hasPrefix("isl_exp_l ") || $0.hasPrefix("saf_sm ") })
        #expect(result.stdout.contains("largest subtrees (JSON bytes):"))
        #expect(result.stdout.contains("ls:VStack > Text[0]"))
    }

    /// A layout whose base64 is over 3345 bytes: 48 texts of pseudo-random letters, which brotli cannot shrink much.
    static var overBudgetLayout: String {
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        let letters = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        func word() -> String {
            String((0..<80).map { _ in
                seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                return letters[Int(seed >> 33) % letters.count]
            })
        }
        let texts = (0..<48).map { _ in #"{"type":"Text","children":"\#(word())"}"# }
        return #"{"lockScreen":{"type":"VStack","children":[\#(texts.joined(separator: ","))]},"island":{"minimal":{"type":"Text","children":"x"}}}"#
    }

    @Test("errors exit 1 and name the file, the path in the layout, or the regions", arguments: ["encode", "size"])
    func errors(command: String) async throws {
        let missing = try await CLI.run(["ui", command, "/nonexistent/layout.json"])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("cannot read layout '/nonexistent/layout.json': no such file"), "\(missing.stderr)")
        #expect(missing.stdout.isEmpty)

        let (dir, bad) = try Self.file("bad.json", #"{"lockScreen":{"type":"VStack","children":[{"type":"Text","props":{"style":5}}]}}"#)
        defer { try? FileManager.default.removeItem(at: dir) }
        let malformed = try await CLI.run(["ui", command, bad])
        #expect(malformed.status == 1)
        #expect(malformed.stderr.contains("\(bad): invalid layout at lockScreen.children[0].props.style"), "\(malformed.stderr)")
        #expect(malformed.stderr.contains("got number 5"))

        let notJSON = dir.appendingPathComponent("notjson.json")
        try Data("{\"lockScreen\": ".utf8).write(to: notJSON)
        let broken = try await CLI.run(["ui", command, notJSON.path])
        #expect(broken.status == 1)
        #expect(broken.stderr.contains("\(notJSON.path): layout is not valid JSON"), "\(broken.stderr)")

        let big = dir.appendingPathComponent("big.json")
        try Data(Self.overBudgetLayout.utf8).write(to: big)
        let over = try await CLI.run(["ui", command, big.path])
        #expect(over.status == 1)
        #expect(over.stderr.contains("over the budget of 3345 bytes"), "\(over.stderr)")
        #expect(over.stderr.contains("Bytes by region (JSON / brotli alone): ls "), "\(over.stderr)")
        #expect(over.stderr.contains("isl_min "))
        #expect(over.stderr.contains("Largest subtrees (JSON bytes): ls:VStack > Text["))
    }

    @Test("decode of something that is not a uiJsonData string exits 1 and says why", arguments: [
        ("not base64!", "uiJsonData is not standard base64"),
        ("aGVsbG8=", "uiJsonData is not a brotli stream (5 bytes after base64)"),
        ("ixOA-yJ2_joxLCJscyI6eyJ0IjowLCJjIjoiSGVsbG8sIHdvcmxkISJ9fQM=", "it looks URL-safe"),
        ("ixOAeyJ2IjoxLCJscyI6eyJ0IjowLCJjIjoiSGVsbG8sIHdvcmxkISJ9fQM", "padding missing?"),
        (#"{"v":1,"ls":{"t":0,"c":"x"}"#, "uiJsonData does not hold JSON"),
    ])
    func decodeGarbage(input: String, message: String) async throws {
        let result = try await CLI.run(["ui", "decode", "-"], stdin: input)
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("error: ") && result.stderr.contains(message), "\(result.stderr)")
        #expect(result.stdout.isEmpty)
    }

    /// `Int(version)` on 1e300 used to kill `ui decode` and `ui preview` with SIGILL.
    @Test("decode and preview of a payload whose v is not an Int exit 1 and name the value", arguments: [
        ("decode", "1e300", "1e+300"), ("decode", "-1e300", "-1e+300"), ("decode", "1.5", "1.5"),
        ("preview", "1e300", "1e+300"), ("preview", "-1e300", "-1e+300"),
    ])
    func hugeVersion(command: String, version: String, printed: String) async throws {
        let result = try await CLI.run(["ui", command, "-"], stdin: #"{"v":\#(version),"ls":{"t":1e300,"c":"x"}}"#)
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("error: ") && result.stderr.contains(#"payload "v" must be an integer, got \#(printed)"#), "\(result.stderr)")
        #expect(result.stdout.isEmpty)
    }

    /// `ui decode` and `ui preview` expanded every `$r` in full: a 1 KB payload ran for ever, and a long
    /// chain of references recursed as deep as it was long.
    @Test("decode and preview refuse payloads past the element and depth limits", arguments: ["decode", "preview"])
    func layoutLimits(command: String) async throws {
        var entries = [#"{"t":0,"c":"x"}"#]
        for i in 1..<30 { entries.append(#"{"t":12,"c":[{"$r":\#(i - 1)},{"$r":\#(i - 1)}]}"#) }
        let doubling = #"{"v":1,"ls":{"$r":29},"e":[\#(entries.joined(separator: ","))]}"#
        let wide = try await CLI.run(["ui", command, "-"], stdin: doubling)
        #expect(wide.status == 1)
        #expect(wide.stderr.hasPrefix("error: ") && wide.stderr.contains("layout expands to more than 10000 elements (at e[13])"), "\(wide.stderr)")
        #expect(wide.stdout.isEmpty)
        let links = (0..<9_999).map { #"{"t":11,"c":{"$r":\#($0 + 1)}}"# } + [#"{"t":0,"c":"end"}"#]
        let chain = #"{"v":1,"ls":{"$r":0},"e":[\#(links.joined(separator: ","))]}"#
        let deep = try await CLI.run(["ui", command, "-"], stdin: chain)
        #expect(deep.status == 1)
        #expect(deep.stderr.hasPrefix("error: ") && deep.stderr.contains("layout nests more than 64 levels deep (at e[64])"), "\(deep.stderr)")
        #expect(deep.stdout.isEmpty)
    }

    /// `ui decode` read its file with lossy UTF-8 decoding, so invalid bytes became U+FFFD and passed;
    /// every command now reads input through readUserFile and the JSON parser and refuses them alike.
    @Test("invalid UTF-8 and raw surrogates are refused by lint and every ui command with the same message", arguments: [
        ([0xFF, 0xFE], "invalid UTF-8"), ([0xED, 0xA0, 0x80], "a raw surrogate (U+D800 as UTF-8)"),
    ] as [([UInt8], String)])
    func invalidUTF8(bad: [UInt8], label: String) async throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // The parser reports the column of the first byte that is not UTF-8.
        let layoutText = Array(#"{"lockScreen":{"type":"Text","children":"a"#.utf8), payloadText = Array(#"{"v":1,"ls":{"t":0,"c":"a"#.utf8)
        let layout = dir.appendingPathComponent("layout.json")
        try Data(layoutText + bad + Array(#""}}"#.utf8)).write(to: layout)
        let payload = dir.appendingPathComponent("wire.json")
        try Data(payloadText + bad + Array(#""}}"#.utf8)).write(to: payload)
        let (layoutColumn, payloadColumn) = (layoutText.count + 1, payloadText.count + 1)
        let byte = "byte 0x" + String(bad[0], radix: 16, uppercase: true)
        let runs: [(args: [String], column: Int)] = [
            (["lint", layout.path], layoutColumn), (["ui", "encode", layout.path], layoutColumn),
            (["ui", "size", layout.path], layoutColumn), (["ui", "preview", layout.path], layoutColumn),
            (["ui", "decode", payload.path], payloadColumn), (["ui", "preview", payload.path], payloadColumn),
        ]
        for run in runs {
            let result = try await CLI.run(run.args)
            #expect(result.status == 1, "\(label): \(run.args)")
            #expect(result.stderr.hasPrefix("error: ") && result.stderr.contains("invalid JSON at line 1, column \(run.column): invalid UTF-8 in a string (\(byte))"),
                    "\(label): \(run.args): \(result.stderr)")
            #expect(result.stdout.isEmpty, "\(label): \(run.args)")
        }
        // A uiJsonData string in a file is text too.
        let string = dir.appendingPathComponent("ui.txt")
        try Data(Array("ixOAeyJ2".utf8) + bad).write(to: string)
        let decoded = try await CLI.run(["ui", "decode", string.path])
        #expect(decoded.status == 1)
        #expect(decoded.stderr == "error: \(string.path): uiJsonData is not valid UTF-8 text (it should be a base64 string)\n", "\(decoded.stderr)")
    }

    /// Pseudo-random hex digits, which brotli cannot shrink much.
    static func noise(_ count: Int) -> String {
        var seed: UInt64 = 7
        return String((0..<count).map { _ in
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Array("0123456789abcdef")[Int(seed >> 60)]
        })
    }

    @Test("encode and size refuse, before parsing or compressing, a layout that cannot fit, naming the sizes", arguments: ["encode", "size"])
    func cannotFit(command: String) async throws {
        let (dir, huge) = try Self.file("huge.json", #"{"lockScreen":{"type":"Text","children":"\#(String(repeating: "a", count: 5 << 20))"}}"#)
        defer { try? FileManager.default.removeItem(at: dir) }
        let tooLong = try await CLI.run(["ui", command, huge])
        #expect(tooLong.status == 1)
        #expect(tooLong.stderr.hasPrefix("error: \(huge): layout is \((5 << 20) + 44) bytes of JSON, over the limit of 4194304 bytes"), "\(tooLong.stderr)")
        #expect(tooLong.stdout.isEmpty)
        let big = dir.appendingPathComponent("big.json")
        try Data(#"{"lockScreen":{"type":"Text","children":"\#(Self.noise(100_000))"}}"#.utf8).write(to: big)
        let tooBig = try await CLI.run(["ui", command, big.path])
        #expect(tooBig.status == 1)
        #expect(tooBig.stderr.hasPrefix("error: \(big.path): UI JSON is \(100_000 + 27) bytes (the smallest of its compact encodings), more than the 20064 bytes"),
                "\(tooBig.stderr)")
        #expect(tooBig.stderr.contains("Nothing was compressed.") && tooBig.stderr.contains("JSON bytes by region: ls \(100_000 + 14)"))
        #expect(tooBig.stdout.isEmpty)
    }

    @Test("decode explains a brotli bomb, warns about a string over the budget and an empty Lock Screen")
    func decodeWarnings() async throws {
        // 100 MB of spaces at brotli quality 2, window 22 (as Brotli.compress): a valid stream of 269 bytes.
        let bomb = try await CLI.run(["ui", "decode", "y///PwAgQAbgYCyIxCQxwJ0243Pv/wj+//8BAAEwAAdjQSQmiQHutBmue/8H8P//DwAIgAE4GAsiMUkMcKfNcN37P4D//38AQAAMwMFYEIlJYoA7bYbr3v8B/P//AwACYAAOxoJITBID3GkzXPf+D+D//x8AEAADcDAWRGKSGOBOm+G6938A////AIAAGICDsSASk8QAd9oM173/A/j//wcABMAAHIwFkZgkBrjTZrju/R/A//8/ACAABuBgLIjEJDHAnTbDde//AP7//wEAATAAB2NBJCaJAe60Ga57/wfw//8PAAiAATgYCyIxSQxwp81w3fs/IP/B6wBAAAzAwVgQiUligDtthuti1wE="])
        #expect(bomb.status == 1)
        #expect(bomb.stderr.hasPrefix("error: uiJsonData inflates to more than 67108864 bytes, the output limit of this decoder, from 269 compressed bytes: a ratio over 249475:1."),
                "\(bomb.stderr)")

        let (dir, path) = try Self.file("noise.json", #"{"lockScreen":{"type":"Text","children":"\#(Self.noise(5000))"}}"#)
        defer { try? FileManager.default.removeItem(at: dir) }
        let json = try await CLI.run(["ui", "encode", path, "--json"])
        let string = try await CLI.run(["ui", "encode", path])
        #expect(json.status == 1 && string.status == 1)   // over budget, printed nonetheless
        let fromString = try await CLI.run(["ui", "decode", string.stdout.trimmingCharacters(in: .newlines)])
        #expect(fromString.status == 0)
        #expect(fromString.stdout.contains(Self.noise(5000)))
        #expect(fromString.stderr.hasPrefix("warning: uiJsonData: \(string.stdout.utf8.count - 1) bytes of base64, over the budget of 3345 bytes"),
                "\(fromString.stderr)")
        let fromJSON = try await CLI.run(["ui", "decode", "-"], stdin: json.stdout)
        #expect(fromJSON.status == 0)
        #expect(fromJSON.stderr.hasPrefix("warning: uiJsonData: JSON is \(5000 + 27) bytes, "), "\(fromJSON.stderr)")
        #expect(fromJSON.stderr.contains("bytes of base64 even at brotli quality 11, over the budget of 3345 bytes"))

        let empty = try await CLI.run(["ui", "decode", "-"], stdin: #"{"v":1,"ls":[]}"#)
        #expect(empty.status == 0)
        #expect(empty.stderr == "warning: ls: an empty array: the device shows nothing in lockScreen [empty-region]\n")
    }

    @Test("usage errors exit 64 with a hint", arguments: [
        (["ui"], "missing command (one of: encode, decode, size"),
        (["ui", "compress"], "unknown command 'compress' for 'liveline ui'"),
        (["ui", "encode"], "expected 1 argument, got none"),
        (["ui", "encode", "a.json", "b.json"], "expected 1 argument, got 'a.json' 'b.json'"),
        (["ui", "encode", "a.json", "--comp"], "unknown option '--comp' (did you mean '--compat'?)"),
        (["ui", "encode", "a.json", "--json=yes"], "'--json' takes no value"),
        (["ui", "decode"], "expected 1 argument, got none"),
        (["ui", "size", "a.json", "--regions"], "unknown option '--regions'"),
    ])
    func usageErrors(args: [String], message: String) async throws {
        let result = try await CLI.run(args)
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix("error: ") && result.stderr.contains(message), "\(result.stderr)")
        #expect(result.stderr.contains("hint: see 'liveline "))
        #expect(result.stdout.isEmpty)
    }

    /// The boarding example of docs/, as a user would pass it.
    static let boardingLayout = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("docs/ui-boarding.json").path

    @Test("preview draws a layout file and the uiJsonData string made from it the same way")
    func preview() async throws {
        // The boarding countdown ends at 2026-01-01T08:30:00Z.
        let fromFile = try await CLI.run(["ui", "preview", Self.boardingLayout, "--now", "2026-01-01T08:25:00Z"])
        #expect(fromFile.status == 0, "\(fromFile.stderr)")
        for part in ["Lock Screen · 08:25", "LIS", "ZRH", "Boards in 5:00", "tint #0B1220", "Dynamic Island · compact",
                     "Gate B12", "Dynamic Island · minimal", "Dynamic Island · expanded", "[sf:airplane]"] {
            #expect(fromFile.stdout.contains(part), "\(part) missing in\n\(fromFile.stdout)")
        }
        let encoded = try await CLI.run(["ui", "encode", Self.boardingLayout])
        let string = encoded.stdout.trimmingCharacters(in: .newlines)
        let fromString = try await CLI.run(["ui", "preview", string, "--now", "2026-01-01T08:25:00Z"])
        #expect(fromString.stdout == fromFile.stdout)
        let body = #"{"aps":{"event":"update","content-state":{"uiJsonData":"\#(string)"}}}"#
        let fromBody = try await CLI.run(["ui", "preview", "-", "--now", "2026-01-01T08:25:00Z"], stdin: body)
        #expect(fromBody.stdout == fromFile.stdout)

        let later = try await CLI.run(["ui", "preview", Self.boardingLayout, "--region", "lock", "--now", "2026-01-01T08:31:00Z",
                                 "--time-zone", "Asia/Tokyo", "--width", "60"])
        #expect(later.status == 0, "\(later.stderr)")
        #expect(later.stdout.contains("Lock Screen · 17:31") && later.stdout.contains("Boarding"))
        #expect(!later.stdout.contains("Boards in") && !later.stdout.contains("Dynamic Island"))
        #expect(later.stdout.split(separator: "\n").allSatisfy { $0.count <= 60 })
        let island = try await CLI.run(["ui", "preview", Self.boardingLayout, "--region", "island"])
        #expect(island.stdout.contains("Dynamic Island · compact") && !island.stdout.contains("Lock Screen"))

        let html = try await CLI.run(["ui", "preview", Self.boardingLayout, "--html", "--now", "2026-01-01T08:25:00Z"])
        #expect(html.status == 0, "\(html.stderr)")
        #expect(html.stdout.hasPrefix("<!DOCTYPE html>") && html.stdout.contains(">Boards in 5:00<"))
        #expect(html.stdout.contains("background:#0B1220") && html.stdout.contains("data-ll-box=\"island-expanded\""))
        let dark = try await CLI.run(["ui", "preview", Self.boardingLayout, "--html", "--dark", "--region", "lock"])
        #expect(dark.stdout.contains("<div class=\"ll-preview ll-dark\"") && !dark.stdout.contains("data-ll-box=\"island-compact\""))
    }

    @Test("preview errors: bad options exit 64, unreadable input exits 1 and names it", arguments: [
        (["ui", "preview", "x.json", "--region", "watch"], 64, "'--region' must be lock, island or all, got 'watch'"),
        (["ui", "preview", "x.json", "--width", "10"], 64, "'--width' must be from 24 to 400, got 10"),
        (["ui", "preview", "x.json", "--now", "teatime"], 64, "'--now' cannot read 'teatime' as a date"),
        (["ui", "preview", "x.json", "--time-zone", "Mars/Olympus"], 64, "'--time-zone' is not a time zone: 'Mars/Olympus'"),
        (["ui", "preview"], 64, "expected 1 argument, got none"),
        (["ui", "preview", "x.json", "--dark"], 64, "'--dark' goes with '--html'"),
        (["ui", "preview", "aGVsbG8="], 1, "uiJsonData is not a brotli stream"),
        (["ui", "preview", "{\"lockScreen\": 5}"], 1, "lockScreen"),
    ])
    func previewErrors(args: [String], status: Int32, message: String) async throws {
        let result = try await CLI.run(args)
        #expect(result.status == status)
        #expect(result.stderr.hasPrefix("error: ") && result.stderr.contains(message), "\(result.stderr)")
        #expect(result.stdout.isEmpty)
    }

    @Test("preview of a payload with an unknown component draws the rest and warns")
    func previewUnknown() async throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("wire.json")
        try Data(#"{"v":1,"ls":{"t":11,"c":[{"t":99,"c":"boom"},{"t":0,"c":"kept"}]}}"#.utf8).write(to: file)
        let result = try await CLI.run(["ui", "preview", file.path, "--region", "lock"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("kept") && !result.stdout.contains("boom"))
        #expect(result.stderr.contains("warning: ") && result.stderr.contains("unknown component id 99"))
        let nope = dir.appendingPathComponent("nope.json").path
        for command in ["preview", "decode"] {
            let missing = try await CLI.run(["ui", command, nope])
            #expect(missing.status == 1)
            #expect(missing.stderr.contains("cannot read \(command == "preview" ? "layout or uiJsonData" : "uiJsonData") '\(nope)': no such file"),
                    "\(missing.stderr)")
        }
    }

    @Test("liveline-bench ui prints compact/compatible ratios for the flight tracker and the spec examples")
    func bench() async throws {
        let result = try await CLI.bench(["ui", "--seconds", "0.05", "--pngs", "0"])
        #expect(result.status == 0, "\(result.stderr)")
        let rows = result.stdout.split(separator: "\n").map(String.init)
        for name in ["flight: scheduled", "flight: delayed", "flight: boarding", "spec: hello", "spec: ride"] {
            let row = try #require(rows.first { $0.hasPrefix(name) }, "no row \(name)")
            let columns = row.dropFirst(name.count).split(separator: " ")
            let compat = try #require(Int(columns[1])), compact = try #require(Int(columns[2]))
            let ratio = try #require(Double(columns[3]))
            // The printed ratio is compact / compatible of the printed byte counts, and compact never loses.
            #expect(abs(ratio - Double(compact) / Double(compat)) < 0.0006, "\(row)")
            #expect(compact <= compat, "\(row)")
        }
        let summary = try #require(rows.first { $0.hasPrefix("flight tracker: compact / compatible = ") })
        let mean = try #require(Double(summary.split(separator: " ")[6]))
        #expect(mean > 0 && mean < 1)
        #expect(summary.hasSuffix("(mean of 3 states; target <= 0.85)"))
        #expect(rows.contains { $0.hasPrefix("  compatible (reference)") && $0.hasSuffix("/s  1.000") })
        #expect(rows.contains { $0.hasPrefix("  compact (q2 + q11 search)") })
    }

    @Test("liveline-bench ui prints the fan-out table: layouts/s and bytes vs compatible per brotli setting")
    func benchFanOut() async throws {
        let result = try await CLI.bench(["ui", "--seconds", "0.02", "--pngs", "0"])
        #expect(result.status == 0, "\(result.stderr)")
        let rows = result.stdout.split(separator: "\n").map(String.init)
        #expect(rows.contains { $0.hasPrefix("fan-out: 48 per-user flight-tracker layouts") })
        #expect(rows.contains { $0.hasSuffix("targets >= 2000 layouts/s and worst <= 0.80x compatible bytes") })
        let header = try #require(rows.firstIndex { $0.hasPrefix("  setting ") })
        #expect(rows[header].hasSuffix("layouts/s    mean   worst  targets"))
        let table = rows[(header + 1)...].prefix { $0.hasPrefix("  ") }
        var names: [String] = []
        for row in table {
            // name, then layouts/s, mean and worst ratio, and whether the targets are met.
            let columns = row.split(separator: " ").suffix(4).map(String.init)
            let rate = try #require(Double(columns[0]), "\(row)")
            let mean = try #require(Double(columns[1])), worst = try #require(Double(columns[2]))
            #expect(rate > 0 && mean > 0 && mean <= worst && worst <= 1, "\(row)")
            #expect(["meets", "no"].contains(columns[3]), "\(row)")
            if columns[3] == "meets" { #expect(rate >= 2000 && worst <= 0.80, "\(row)") }
            names.append(String(row.dropFirst(2).prefix(26)).trimmingCharacters(in: .whitespaces))
        }
        #expect(names.first == "compact (q2 + q11 search)")
        for quality in [2, 4, 5, 6, 7, 8, 9, 10, 11] { #expect(names.contains("compact JSON, q\(quality) w22"), "\(names)") }
        // The mode's own row: its bytes meet the target whatever the machine's speed.
        let mode = try #require(table.first { $0.hasPrefix("  fanOut mode (q") })
        let worst = try #require(Double(mode.split(separator: " ").suffix(2).first ?? ""))
        #expect(worst <= 0.80, "\(mode)")
    }
}
