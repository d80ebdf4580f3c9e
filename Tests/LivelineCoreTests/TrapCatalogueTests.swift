import Foundation
import Testing

/// docs/traps.md is a promise: every code it lists is reported by the sources, and the test file
/// it names asserts that code. A row whose code was renamed, or whose test stopped checking it,
/// fails here instead of going stale.
@Suite("docs/traps.md: each trap's code exists and its named test asserts it")
struct TrapCatalogueTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    struct Row {
        var line: Int
        var codes: [String]
        var test: String
    }

    /// The table rows: `| trap | where | `code`, `code` | Suite/File.swift |`.
    static func rows() throws -> [Row] {
        let text = try String(contentsOf: root.appendingPathComponent("docs/traps.md"), encoding: .utf8)
        var rows: [Row] = []
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() where line.hasPrefix("| ") {
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count == 4, cells[3].hasSuffix(".swift") else { continue }
            let codes = cells[2].split(separator: "`", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) }
            rows.append(Row(line: index + 1, codes: codes, test: cells[3]))
        }
        return rows
    }

    static func swiftFiles(under folder: String) -> [String] {
        let base = root.appendingPathComponent(folder)
        let paths = FileManager.default.enumerator(atPath: base.path)?.compactMap { $0 as? String } ?? []
        return paths.filter { $0.hasSuffix(".swift") }.compactMap { try? String(contentsOf: base.appendingPathComponent($0), encoding: .utf8) }
    }

    @Test("every row names codes the sources report and a test file that asserts each")
    func everyRow() throws {
        let rows = try Self.rows()
        #expect(rows.count >= 30, "docs/traps.md: only \(rows.count) rows were read; the table format changed?")
        let sources = Self.swiftFiles(under: "Sources")
        for row in rows {
            #expect(!row.codes.isEmpty, "docs/traps.md:\(row.line): no code in backticks")
            let testURL = Self.root.appendingPathComponent("Tests/" + row.test)
            guard let test = try? String(contentsOf: testURL, encoding: .utf8) else {
                Issue.record("docs/traps.md:\(row.line): Tests/\(row.test) does not exist")
                continue
            }
            for code in row.codes {
                // The Swift name a source gives the code (`static let millisecondDate = Code(rawValue: "millisecond-date")`).
                let declaration = try Regex("static let (\\w+) = \\w+\\(rawValue: \"\(code)\"\\)")
                let names = sources.compactMap { $0.firstMatch(of: declaration).map { String($0.output[1].substring ?? "") } }
                let reported = !names.isEmpty || sources.contains { $0.contains("\"\(code)\"") || $0.contains("[\(code)]") }
                #expect(reported, "docs/traps.md:\(row.line): no source reports `\(code)`")
                let asserted = test.contains("\"\(code)\"") || test.contains("[\(code)]") || names.contains { test.contains(".\($0)") }
                #expect(asserted, "docs/traps.md:\(row.line): Tests/\(row.test) never checks `\(code)`")
            }
        }
    }
}
