import Foundation
import LivelineFuzzTargets
import Testing

/// A few seconds of each fuzz target inside `make test`: every corpus input as it is, then a
/// seeded mutation loop over the corpus (`make fuzz` runs the same checks under libFuzzer).
// Serialized, and yielding now and then: a CPU-bound loop must not hold both of a 2-core machine's
// cooperative threads while other suites' servers answer from tasks.
@Suite(.serialized) struct FuzzSmokeTests {
    /// `Fuzz/Corpus/`, found from this file.
    static let corpusRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Fuzz/Corpus").standardized.path

    /// The corpus of `target`, sorted by file name.
    static func corpus(_ target: String) -> [[UInt8]] {
        let folder = corpusRoot + "/" + target
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
        return names.compactMap { FileManager.default.contents(atPath: folder + "/" + $0).map { Array($0) } }
    }

    /// Mutations per target: the service and the simulator do far more per input than a parser.
    static let iterations: [String: Int] = [
        "json": 4000, "voltra-json": 3000, "voltra-base64": 3000, "layout-form": 3000, "pem-key": 1500, "simulator": 1500, "service": 600,
    ]

    @Test func everyTargetHasACorpusAndAnIterationCount() {
        for target in FuzzTarget.all {
            #expect(!Self.corpus(target.name).isEmpty, "no corpus for \(target.name) in \(Self.corpusRoot)")
            #expect(Self.iterations[target.name] != nil, "no iteration count for \(target.name)")
        }
    }

    @Test(arguments: FuzzTarget.all.map(\.name))
    func mutatedCorpusKeepsTheParserPromises(_ name: String) async throws {
        let target = try #require(FuzzTarget.named(name))
        let seeds = Self.corpus(name)
        try #require(!seeds.isEmpty)
        var failures: [String] = []
        func record(_ problem: String?, _ input: [UInt8], _ label: String) {
            guard let problem, failures.count < 5 else { return }
            failures.append("\(label): \(problem)\n  input (base64): \(Data(input).base64EncodedString())")
        }
        for (i, seed) in seeds.enumerated() { record(await target.check(seed), seed, "corpus file \(i)") }
        var mutator = Mutator(seed: 0x11_7E11_4E ^ UInt64(name.utf8.count))
        var current = seeds[0]
        for iteration in 0..<(Self.iterations[name] ?? 1000) {
            if iteration % 8 == 0 { current = seeds[mutator.below(seeds.count)] }
            let input = mutator.mutate(current, splicing: seeds[mutator.below(seeds.count)])
            record(await target.check(input), input, "iteration \(iteration)")
            // Stacking edits reaches deeper; going back to a seed now and then keeps inputs near valid.
            if input.count < 64 * 1024 { current = input }
            if iteration % 64 == 63 { await Task.yield() }
        }
        #expect(failures.isEmpty, "\(name):\n\(failures.joined(separator: "\n"))")
    }
}
