import Foundation
import LivelineCommandLine
import LivelineSimulator

/// A benchmark's temporary directory, its CA and server certificate (the simulator's), and the
/// reference servers and tools it runs: nginx, nghttpd, h2load, `liveline serve`. Shared by every
/// `liveline-bench` command.
struct BenchWorkspace {
    let directory: URL
    let certificates: SimulatorCertificates
    var caFile: String { certificates.caFile }

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("liveline-bench-\(UUID().uuidString.prefix(8))")
        do {
            certificates = try SimulatorCertificates.prepare(in: directory.path)
        } catch {
            throw CLIError(message: error.message)
        }
    }

    func remove() { try? FileManager.default.removeItem(at: directory) }

    /// The `liveline` executable beside this one, for the benchmarks that run `liveline serve`.
    static func liveline() throws(CLIError) -> String {
        try SiblingExecutable.path("liveline", neededBy: "liveline-bench")
    }

    @discardableResult
    static func tool(_ path: String, _ arguments: [String]) throws -> String {
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw CLIError(message: "\(path) is not installed (see scripts/install-deps.sh)")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let out = Pipe()
        process.standardOutput = out
        process.standardError = out
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        guard process.terminationStatus == 0 else {
            throw CLIError(message: "\(URL(fileURLWithPath: path).lastPathComponent) \(arguments.prefix(3).joined(separator: " ")) failed: \(text.suffix(400))")
        }
        return text
    }

    /// A free loopback port (bind to port 0, read it back, close).
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard ok else { throw CLIError(message: "cannot find a free loopback port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    struct Server {
        let process: Process
        let port: Int
        /// SIGTERM, then SIGKILL after 2 s; polls rather than `waitUntilExit`, which spins on Linux.
        func stop() {
            guard process.isRunning else { return }
            process.terminate()
            let deadline = ContinuousClock.now + .seconds(2)
            while process.isRunning && ContinuousClock.now < deadline { usleep(5_000) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            while process.isRunning { usleep(5_000) }
        }
    }

    /// Starts nginx (`return 200`) or nghttpd on a free port and waits until it accepts connections.
    /// - Parameter executable: the server binary (default /usr/sbin/nginx or /usr/sbin/nghttpd).
    func startServer(kind: String, streams: Int, deviceTokens: [String] = [], executable: String? = nil) throws -> Server {
        let port = try Self.freePort()
        let d = directory.path
        let process = Process()
        if kind == "nginx" {
            let config = """
                daemon off; master_process off; worker_processes 1; pid \(d)/nginx.pid; error_log \(d)/error.log warn;
                events { worker_connections 1024; }
                http {
                    access_log off; client_body_temp_path \(d)/body; proxy_temp_path \(d)/proxy; fastcgi_temp_path \(d)/fastcgi;
                    uwsgi_temp_path \(d)/uwsgi; scgi_temp_path \(d)/scgi; keepalive_requests 100000000; keepalive_timeout 600s;
                    server {
                        listen 127.0.0.1:\(port) ssl http2;
                        ssl_certificate \(certificates.certificateFile); ssl_certificate_key \(certificates.keyFile);
                        http2_max_concurrent_streams \(streams);
                        location / { add_header apns-id $http_apns_id; return 200; }
                    }
                }
                """
            try Data(config.utf8).write(to: directory.appendingPathComponent("nginx.conf"))
            process.executableURL = URL(fileURLWithPath: executable ?? "/usr/sbin/nginx")
            process.arguments = ["-p", d, "-e", "\(d)/error.log", "-c", "\(d)/nginx.conf"]
        } else {
            let devices = directory.appendingPathComponent("root/3/device")
            try FileManager.default.createDirectory(at: devices, withIntermediateDirectories: true)
            for token in deviceTokens {
                _ = FileManager.default.createFile(atPath: devices.appendingPathComponent(token).path, contents: Data())
            }
            process.executableURL = URL(fileURLWithPath: executable ?? "/usr/sbin/nghttpd")
            process.arguments = ["-a", "127.0.0.1", "-d", "\(d)/root", "-m", String(streams), String(port), certificates.keyFile, certificates.certificateFile]
        }
        guard FileManager.default.isExecutableFile(atPath: process.executableURL!.path) else {
            throw CLIError(message: "\(process.executableURL!.path) is not installed")
        }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let server = Server(process: process, port: port)
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            guard process.isRunning else { throw CLIError(message: "\(kind) exited at start (status \(process.terminationStatus))") }
            if Self.canConnect(port: port) { return server }
            usleep(5_000)  // polling interval between connect attempts, bounded by the deadline
        }
        server.stop()
        throw CLIError(message: "\(kind) did not accept connections on 127.0.0.1:\(port) within 10 s")
    }

    static func canConnect(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }

    /// Runs h2load on one connection and returns its requests per second; with several `paths` it
    /// cycles through them in order (`h2load -i`), as a bulk send cycles through device tokens.
    func h2load(port: Int, paths: [String], headers: [(name: String, value: String)], body: [UInt8], count: Int, streams: Int) throws -> Double {
        let bodyFile = directory.appendingPathComponent("body.json")
        try Data(body).write(to: bodyFile)
        var arguments = ["-n", String(count), "-c", "1", "-m", String(streams), "-d", bodyFile.path]
        for header in headers { arguments += ["-H", "\(header.name): \(header.value)"] }
        if paths.count == 1 {
            arguments.append("https://127.0.0.1:\(port)\(paths[0])")
        } else {
            let uriFile = directory.appendingPathComponent("uris.txt")
            try Data(paths.map { "https://127.0.0.1:\(port)\($0)\n" }.joined().utf8).write(to: uriFile)
            arguments += ["-i", uriFile.path]
        }
        let run = try Self.h2load(arguments)
        if let status = run.output.split(separator: "\n").first(where: { $0.hasPrefix("status codes:") }), !status.contains("\(count) 2xx") {
            throw CLIError(message: "h2load did not get \(count) 2xx responses: \(status)")
        }
        return run.rate
    }

    /// What one h2load run printed: requests per second, requests that succeeded, the whole text.
    struct H2LoadRun {
        var rate: Double
        var succeeded: Int
        var output: String
    }

    /// Runs /usr/bin/h2load with `arguments` and reads its figures.
    static func h2load(_ arguments: [String]) throws -> H2LoadRun {
        let output = try tool("/usr/bin/h2load", arguments)
        // "finished in 301.05ms, 66434.45 req/s, 2.53MB/s"
        let lines = output.split(separator: "\n")
        guard let line = lines.first(where: { $0.hasPrefix("finished in") }),
              let field = line.split(separator: ",").dropFirst().first,
              let rate = Double(field.trimmingCharacters(in: .whitespaces).split(separator: " ").first ?? "")
        else { throw CLIError(message: "cannot read h2load's output: \(output.suffix(300))") }
        // "requests: 20000 total, 20000 started, 20000 done, 20000 succeeded, 0 failed, ..."
        let requests = lines.first { $0.hasPrefix("requests:") } ?? ""
        let succeeded = requests.split(separator: ",").first { $0.contains("succeeded") }
            .flatMap { Int($0.split(separator: " ").first ?? "") } ?? 0
        return H2LoadRun(rate: rate, succeeded: succeeded, output: output)
    }
}
