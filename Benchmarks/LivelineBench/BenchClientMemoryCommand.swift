import Foundation
import LivelineAPNS
import LivelineCommandLine
import LivelineCrypto

/// `liveline-bench client-memory`: the peak memory of a process sending N pushes with APNSClient,
/// each N in a fresh process (`liveline-client-probe`, which links LivelineAPNS and nothing else),
/// beside h2load sending the same number of requests to the same server in the same run.
enum BenchClientMemoryCommand: LivelineCommand {
    static let spec = CommandSpec(
        path: "liveline-bench client-memory", abstract: "Peak RSS of APNSClient sending N pushes, each N in a fresh process, against h2load.",
        usage: "[--counts N,N...] [--streams N] [--in-flight N] [--connections N]",
        options: [
            .init(name: "counts", valueName: "n,n", help: "Pushes per run, each in its own process (default 10000,100000,1000000)."),
            .init(name: "streams", valueName: "n", help: "nginx's concurrent stream limit and h2load -m (default 1000, APNs' limit)."),
            .init(name: "in-flight", valueName: "n", help: "APNSClient maxInFlight (default 1000)."),
            .init(name: "connections", valueName: "n", help: "APNSClient connections (default 1)."),
        ],
        discussion: """
            Starts nginx (answers 200 like APNs) on a free loopback port with a run-time certificate. For
            each N it runs liveline-client-probe (built beside liveline-bench: swift build -c release
            --product liveline-client-probe) with glibc's malloc, then again with jemalloc preloaded
            (LD_PRELOAD, when libjemalloc.so.2 is installed), then h2load -n N -c 1 -m <streams>, its peak
            RSS (VmHWM) read from /proc every 5 ms. The probe samples /proc/self/status every 10 ms and prints its figures: RSS at
            start (Foundation, OpenSSL, nghttp2 and the binary loaded, nothing run), after connecting, and
            the peak (VmHWM), with the most anonymous (heap, stacks) and file-backed (code) memory seen.
            An idle row (the probe exiting at once) is the process's fixed baseline.
            A flat peak from the smallest N to the largest means memory does not grow with the pushes.
            """)

    static let jemalloc = "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2"

    static func run(_ arguments: Arguments) async throws -> Int32 {
        // This binary's own RSS before it starts anything: what the old in-process figure started from.
        let benchAtStart = ((try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? "").split(separator: "\n")
            .first { $0.hasPrefix("VmRSS:") }.flatMap { Double($0.split(separator: " ").dropFirst().first ?? "") }
        let counts = try BenchClientCommand.list(arguments, "counts", default: [10_000, 100_000, 1_000_000])
        let streams = try arguments.int("streams") ?? 1000
        let inFlight = try arguments.int("in-flight") ?? 1000
        let connections = try arguments.int("connections") ?? 1
        guard streams > 0, inFlight > 0, connections > 0 else { throw arguments.usageError("'--streams', '--in-flight' and '--connections' must be positive") }
        let probe = try SiblingExecutable.path("liveline-client-probe", neededBy: "liveline-bench client-memory")

        let workspace = try BenchWorkspace()
        defer { workspace.remove() }
        let server = try workspace.startServer(kind: "nginx", streams: streams)
        defer { server.stop() }
        let key = try P256PrivateKey.generate()
        let keyFile = workspace.directory.appendingPathComponent("AuthKey_\(BenchClientCommand.benchKeyID).p8").path
        try Data(try key.pkcs8PEM().utf8).write(to: URL(fileURLWithPath: keyFile))
        chmod(keyFile, 0o600)
        let allocators: [(String, [String: String])] = FileManager.default.fileExists(atPath: jemalloc)
            ? [("glibc", [:]), ("jemalloc", ["LD_PRELOAD": jemalloc])] : [("glibc", [:])]
        Console.out("server: nginx on 127.0.0.1:\(server.port), \(streams) streams; APNSClient \(connections) connection(s), maxInFlight \(inFlight); "
            + "\(ProcessInfo.processInfo.activeProcessorCount) cores; load \(loadAverage())")
        Console.out("\nprocess                          N  peak RSS MB  anon MB  file MB  start MB  input MB  connected MB  heap at end MB  pushes/s")

        for (name, environment) in allocators {
            let idle = try runProbe(probe, ["--idle"], environment: environment)
            Console.out(pad("probe, \(name)", 24) + pad("idle", 10, left: true) + String(format: "  %11.1f  %7.1f  %7.1f  %8.1f  %8@  %12@  %14@  %8@",
                               mb(idle["start_rss"]), mb(idle["start_anon"]), mb(idle["start_file"]), mb(idle["start_rss"]), "-" as NSString, "-" as NSString,
                               heap(idle), "-" as NSString))
        }
        Console.out(pad("liveline-bench itself", 24) + pad("idle", 10, left: true) + String(format: "  %11.1f", mb(benchAtStart)))

        let paths = try UpdateSequence(count: 1000, bundleID: "com.example.flights").ring.map { "/3/device/\($0.1)" }
        let sample = try UpdateSequence(count: 1, bundleID: "com.example.flights").ring[0].0
        let authorization = try APNSTokenProvider(key: key, keyID: BenchClientCommand.benchKeyID, teamID: BenchClientCommand.benchTeamID).current().authorization
        for count in counts {
            for (name, environment) in allocators {
                let figures = try runProbe(probe, [
                    "--port", String(server.port), "--ca", workspace.caFile, "--key", keyFile, "--key-id", BenchClientCommand.benchKeyID,
                    "--team-id", BenchClientCommand.benchTeamID, "--count", String(count), "--connections", String(connections), "--in-flight", String(inFlight),
                ], environment: environment)
                let rate = Double(count) / max(figures["seconds"] ?? 1, 1e-9)
                Console.out(pad("APNSClient, \(name)", 24) + String(format: " %9d  %11.1f  %7.1f  %7.1f  %8.1f  %8.1f  %12.1f  %14@  %8.0f%@", count,
                                   mb(figures["peak_rss"]), mb(figures["peak_anon"]), mb(figures["peak_file"]), mb(figures["start_rss"]), mb(figures["ready_rss"]), mb(figures["connected_rss"]),
                                   heap(figures), rate, (figures["failed"] ?? 0) > 0 ? " (\(Int(figures["failed"]!)) failed)" as NSString : "" as NSString))
            }
            let bodyFile = workspace.directory.appendingPathComponent("body.json")
            try Data(try sample.validate(for: .device)).write(to: bodyFile)
            let uriFile = workspace.directory.appendingPathComponent("uris.txt")
            try Data(paths.map { "https://127.0.0.1:\(server.port)\($0)\n" }.joined().utf8).write(to: uriFile)
            var h2loadArguments = ["-n", String(count), "-c", "1", "-m", String(streams), "-d", bodyFile.path, "-i", uriFile.path]
            for header in sample.headers + [("authorization", authorization)] { h2loadArguments += ["-H", "\(header.name): \(header.value)"] }
            let reference = try peakRSS("/usr/bin/h2load", h2loadArguments)
            Console.out(pad("h2load -c 1 -m \(streams)", 24) + String(format: " %9d  %11.1f", count, mb(reference)))
        }
        Console.out("\n(each row is its own process; MB = 2^20 bytes; start: nothing run; input: the pushes built (50 content states, 1000 tokens); connected: "
            + "TLS up and warm-up pushes answered; anon and file are the highest values sampled every 10 ms while sending, the peak is VmHWM)")
        return 0
    }

    /// `text` padded with spaces to `width` (on the left when `left`).
    static func pad(_ text: String, _ width: Int, left: Bool = false) -> String {
        let spaces = String(repeating: " ", count: max(0, width - text.count))
        return left ? spaces + text : text + spaces
    }

    static func mb(_ kilobytes: Double?) -> Double { (kilobytes ?? .nan) / 1024 }

    /// jemalloc's allocated bytes in MB, or "-" under glibc's malloc (it has no such figure).
    static func heap(_ figures: [String: Double]) -> NSString {
        guard let kb = figures["heap_allocated"] else { return "-" }
        return String(format: "%.1f", kb / 1024) as NSString
    }

    static func loadAverage() -> String {
        var loads = [Double](repeating: 0, count: 3)
        return getloadavg(&loads, 3) == 3 ? String(format: "%.1f %.1f %.1f", loads[0], loads[1], loads[2]) : "?"
    }

    /// Runs the probe and reads its `name=value` figures.
    static func runProbe(_ probe: String, _ arguments: [String], environment: [String: String]) throws -> [String: Double] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: probe)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        let errors = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        guard process.terminationStatus == 0 else {
            throw CLIError(message: "liveline-client-probe \(arguments.first ?? "") exited \(process.terminationStatus): \(text) \(String(decoding: errors, as: UTF8.self).suffix(400))")
        }
        var figures: [String: Double] = [:]
        for field in text.split(whereSeparator: { $0 == " " || $0 == "\n" }) {
            let parts = field.split(separator: "=", maxSplits: 1)
            if parts.count == 2, let value = Double(parts[1]) { figures[String(parts[0])] = value }
        }
        guard figures["start_rss"] != nil else { throw CLIError(message: "cannot read liveline-client-probe's figures: \(text.suffix(300))") }
        return figures
    }

    /// Runs `executable` with its output discarded and returns its peak RSS in kB: its VmHWM, read
    /// from /proc every 5 ms until it exits. (The child's own `ru_maxrss` would not do: a child
    /// spawned from this process starts in this process's address space, and Linux carries that
    /// address space's high-water mark across exec.) A non-zero exit is an error naming it.
    static func peakRSS(_ executable: String, _ arguments: [String]) throws -> Double {
        guard FileManager.default.isExecutableFile(atPath: executable) else {
            throw CLIError(message: "\(executable) is not installed (see scripts/install-deps.sh)")
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for a in argv { free(a) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv, environ)
        guard spawned == 0 else { throw CLIError(message: "cannot start \(executable): \(String(cString: strerror(spawned)))") }
        var peak = 0.0
        var status: Int32 = 0
        while true {
            if let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
               let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
               let kb = Double(line.split(separator: " ").dropFirst().first ?? "") {
                peak = max(peak, kb)
            }
            let done = waitpid(pid, &status, WNOHANG)
            if done == pid { break }
            guard done == 0 || errno == EINTR else { throw CLIError(message: "waiting for \(executable) failed: \(String(cString: strerror(errno)))") }
            usleep(5_000)  // the sampling period
        }
        // WIFEXITED and WEXITSTATUS, spelled out: the low 7 bits are the signal, the next 8 the code.
        guard status & 0x7f == 0, (status >> 8) & 0xff == 0 else {
            throw CLIError(message: "\(URL(fileURLWithPath: executable).lastPathComponent) \(arguments.prefix(3).joined(separator: " ")) failed (wait status \(status))")
        }
        return peak
    }
}
