import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Whether the browser suites can run here: they drive Debian's Chromium (through chromedriver,
/// from Swift or from `/usr/bin/python3` with python3-selenium) and firefox-esr.
///
/// Without them a browser suite is skipped, and says so: its `.enabled(if: TestBrowsers.…, …)`
/// comment is printed as the skip's reason. With `LIVELINE_REQUIRE_SERVERS=1` (a full run:
/// `make test` sets it) the suites run regardless and fail, naming what is missing.
public enum TestBrowsers {
    /// The Debian packages the browser suites need.
    public static let packages = "chromium chromium-driver python3-selenium firefox-esr (scripts/install-deps.sh test)"

    /// Whether `name` is an executable in a directory of `PATH` (or is an executable path).
    static func installed(_ name: String) -> Bool {
        if name.hasPrefix("/") { return FileManager.default.isExecutableFile(atPath: name) }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").contains { FileManager.default.isExecutableFile(atPath: "\($0)/\(name)") }
    }

    /// What of Chromium, chromedriver and Debian's python3-selenium is missing (empty: nothing).
    public static var chromiumMissing: [String] {
        var missing = ["chromium", "chromedriver"].filter { !installed($0) }
        if !FileManager.default.fileExists(atPath: "/usr/lib/python3/dist-packages/selenium") { missing.append("python3-selenium") }
        return missing
    }

    /// Whether the Chromium suites run: everything is installed, or a full run requires them.
    public static var chromiumRuns: Bool { chromiumMissing.isEmpty || TestServers.required }

    /// Whether the Firefox suite runs: firefox-esr and Debian's python3-websockets are installed,
    /// or a full run requires them.
    public static var firefoxRuns: Bool {
        (installed("/usr/bin/firefox-esr") && FileManager.default.fileExists(atPath: "/usr/lib/python3/dist-packages/websockets")) || TestServers.required
    }
}

// MARK: - Browser slots: how many browsers run at once, across test processes

extension TestBrowsers {
    /// How many browser tests of all the test processes on this machine run at once
    /// (`LIVELINE_BROWSER_SLOTS`, default 2). Each Chromium or Firefox takes a core while it
    /// draws; unlimited, the browser suites together starved the network tests beside them on
    /// the 2-core CI machine (why they used to run in a serial phase of their own).
    public static var slotCount: Int {
        max(1, ProcessInfo.processInfo.environment["LIVELINE_BROWSER_SLOTS"].flatMap(Int.init) ?? 2)
    }

    /// The directory of the slot files (one per slot, shared by every test process of this user).
    static var slotDirectory: String { NSTemporaryDirectory() + "liveline-browser-slots-\(getuid())" }

    /// The default bound of a wait for a slot: the browser tests ahead of this one run first.
    public static let slotWaitLimit: Duration = .seconds(600)

    /// Runs `body` (a test that starts or drives a browser: Chromium, Firefox, chromedriver, a
    /// `liveline preview` that starts one) while holding one of `slotCount` slots, waiting for one
    /// for at most `limit`. A slot is an `flock`ed file: the kernel frees it when its holder exits,
    /// however it exits, and a child process never inherits it (LivelineProcess passes a child
    /// descriptors 0, 1, 2 and its parent watch only).
    /// - Parameter what: the test, for the slot file and for the message of whoever waits.
    /// - Throws: `TestingError` naming the holders when no slot was free within `limit`; what
    ///   `body` throws.
    @discardableResult
    public static func withSlot<T: Sendable>(_ what: String, within limit: Duration = slotWaitLimit,
                                             _ body: () async throws -> T) async throws -> T {
        let slot = try await BrowserSlot.take(what, count: slotCount, directory: slotDirectory, within: limit)
        defer { slot.release() }
        return try await body()
    }
}

/// One held browser slot: the open, locked slot file.
final class BrowserSlot: Sendable {
    private let fd: Int32

    private init(fd: Int32) { self.fd = fd }

    /// Takes a free slot of `count` in `directory`, polling (every 50 ms, suspended between
    /// polls) for at most `limit`; past it, fails naming what holds each slot.
    static func take(_ what: String, count: Int, directory: String, within limit: Duration) async throws -> BrowserSlot {
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw TestingError("cannot create the browser slot directory \(directory): \(error)")
        }
        var taken: BrowserSlot?
        do {
            try await until("a browser slot for \(what) (\(count) at a time across test processes)", within: limit, poll: .milliseconds(50)) {
                taken = try tryTake(what, count: count, directory: directory)
                return taken != nil
            }
        } catch let error as TestingError {
            throw TestingError("\(error.description); held by: \(holders(count: count, directory: directory))")
        }
        return taken!
    }

    /// A free slot now, or nil.
    private static func tryTake(_ what: String, count: Int, directory: String) throws -> BrowserSlot? {
        for index in 0..<count {
            let path = "\(directory)/slot-\(index)"
            let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
            guard fd >= 0 else { throw TestingError("cannot open the browser slot \(path): \(String(cString: strerror(errno)))") }
            if flock(fd, LOCK_EX | LOCK_NB) == 0 {
                let holder = Array("process \(getpid()): \(what), since \(ISO8601DateFormatter().string(from: Date()))\n".utf8)
                _ = ftruncate(fd, 0)
                _ = holder.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
                return BrowserSlot(fd: fd)
            }
            close(fd)
        }
        return nil
    }

    /// What each slot file says holds it.
    private static func holders(count: Int, directory: String) -> String {
        (0..<count).map { index in
            let text = (try? String(contentsOfFile: "\(directory)/slot-\(index)", encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
            return "slot \(index): \(text.isEmpty ? "?" : text)"
        }.joined(separator: "; ")
    }

    /// Frees the slot (the next waiter's poll takes it).
    func release() {
        _ = ftruncate(fd, 0)
        _ = flock(fd, LOCK_UN)
        close(fd)
    }
}
