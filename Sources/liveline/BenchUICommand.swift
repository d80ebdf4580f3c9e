import Foundation
import LivelineCore
import LivelineUI

/// `liveline bench ui`: flight-tracker render + compress rate, and compact versus compatible bytes.
enum BenchUICommand: LivelineCommand {
    static let spec = CommandSpec(
        path: "liveline bench ui", abstract: "Benchmark UI encoding: renders per second and compact/compatible bytes.",
        usage: "[--seconds <s>]",
        options: [.init(name: "seconds", valueName: "s", help: "Time per throughput measurement (default 1).")],
        discussion: """
            Reference: compatibility mode (Voltra's own server output: identity sharing, brotli quality 2).
            Prints compressed bytes of both modes on the flight tracker (three states) and on the spec's
            examples, with the compact/compatible ratio, then layouts rendered and compressed per second.
            """)

    static func run(_ arguments: Arguments) async throws -> Int32 {
        let seconds = try arguments.double("seconds") ?? 1
        guard seconds > 0 else { throw arguments.usageError("'--seconds' must be positive, got \(seconds)") }
        let departure = Date(timeIntervalSince1970: 1_767_258_000)
        let attributes = FlightAttributes.example(departure: departure)
        let template = FlightTemplate()
        let states: [(String, FlightAttributes.ContentState)] = [
            ("flight: scheduled", .init(status: .scheduled, gate: nil, boardingTime: departure.addingTimeInterval(-1800))),
            ("flight: delayed", .init(status: .delayed, gate: "B12", boardingTime: departure.addingTimeInterval(900), delayMinutes: 45)),
            ("flight: boarding", .init(status: .boarding, gate: "B12", boardingTime: departure.addingTimeInterval(-1800), isBoarding: true)),
        ]
        var cases: [(String, UILayout)] = states.map { ($0.0, template.layout(attributes: attributes, state: $0.1)) }
        for (name, form) in specExamples { cases.append((name, try LayoutForm.parse(Array(form.utf8)))) }

        var lines = ["compressed bytes (brotli stream; base64 is 4/3 of it)", ""]
        lines.append(pad("layout", 22) + pad("JSON compat", 12, right: true) + pad("compat", 8, right: true)
            + pad("compact", 9, right: true) + pad("ratio", 8, right: true) + "  compact pick")
        var flightRatios: [Double] = []
        for (name, layout) in cases {
            let compat = VoltraEncoder.encode(layout, mode: .compatible)
            let compact = VoltraEncoder.encode(layout, mode: .compact)
            let ratio = Double(compact.compressed.count) / Double(compat.compressed.count)
            if name.hasPrefix("flight") { flightRatios.append(ratio) }
            lines.append(pad(name, 22) + pad("\(compat.json.count)", 12, right: true) + pad("\(compat.compressed.count)", 8, right: true)
                + pad("\(compact.compressed.count)", 9, right: true) + pad(String(format: "%.3f", ratio), 8, right: true)
                + "  JSON \(compact.json.count) B, q\(compact.quality)")
        }
        let mean = flightRatios.reduce(0, +) / Double(flightRatios.count)
        lines.append("")
        lines.append(String(format: "flight tracker: compact / compatible = %.3f (mean of %d states; target <= 0.85)", mean, flightRatios.count))
        Console.out(lines.joined(separator: "\n"))

        let flight = template.layout(attributes: attributes, state: states[1].1)
        let compatRate = rate(seconds) { _ = VoltraEncoder.encode(flight, mode: .compatible) }
        let compactRate = rate(seconds) { _ = VoltraEncoder.encode(flight, mode: .compact) }
        let dslRate = rate(seconds) { _ = VoltraEncoder.encode(template.layout(attributes: attributes, state: states[1].1), mode: .compatible) }
        Console.out("""

            flight tracker, render + compress per second (one core):
              compatible (reference)      \(String(format: "%9.0f", compatRate)) /s  1.000
              compatible incl. DSL build  \(String(format: "%9.0f", dslRate)) /s  \(String(format: "%.3f", dslRate / compatRate))
              compact (q2 + q11 search)   \(String(format: "%9.0f", compactRate)) /s  \(String(format: "%.3f", compactRate / compatRate))
            """)
        return 0
    }

    static func rate(_ seconds: Double, _ body: () -> Void) -> Double {
        body()
        let clock = ContinuousClock()
        let start = clock.now
        var count = 0
        var elapsed = Duration.zero
        repeat {
            body()
            count += 1
            elapsed = clock.now - start
        } while elapsed < .seconds(seconds)
        let s = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return Double(count) / s
    }

    static func pad(_ s: String, _ width: Int, right: Bool = false) -> String {
        let space = String(repeating: " ", count: max(0, width - s.count))
        return right ? space + s : s + space
    }

    /// The wire-format notes' §1.8 examples 1 and 2 in the JSON form (example 3 needs shared objects).
    static let specExamples: [(String, String)] = [
        ("spec: hello", #"{"lockScreen":{"type":"Text","children":"Hello, world!"}}"#),
        ("spec: ride", """
            {"lockScreen":{"type":"VStack","props":{"style":{"padding":16,"borderRadius":18,"backgroundColor":"#101828"}},"children":[
            {"type":"Symbol","props":{"name":"car.fill","type":"hierarchical","scale":"large","tintColor":"#38BDF8"}},
            {"type":"Text","props":{"style":{"color":"#F8FAFC","fontSize":18,"fontWeight":"600"}},"children":"Driver arrived"},
            {"type":"Text","props":{"style":{"color":"#94A3B8","fontSize":12,"marginTop":8}},"children":"Ready for pickup"}]}}
            """),
    ]
}
