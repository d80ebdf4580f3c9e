import Foundation
import LivelineProcess
import LivelineTesting
import Testing
#if canImport(Glibc)
import Glibc
#endif

@Suite("ProcessRunner and RunningProcess")
struct ProcessRunnerTests {
    @Test("status, stdout and stderr come back separately; stdin larger than a pipe buffer reaches the program")
    func outputAndInput() async throws {
        let split = try await ProcessRunner.run("/bin/sh", ["-c", "echo out; echo err >&2; exit 3"])
        #expect(split.status == 3)
        #expect(split.stdoutText == "out\n")
        #expect(split.stderrText == "err\n")
        let input = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        let echoed = try await ProcessRunner.run("/bin/cat", [], stdin: input)
        #expect(echoed.status == 0)
        #expect(echoed.stdout == input)
    }

    @Test("a program that exits without reading a large input is reported by status (EPIPE, no SIGPIPE for the test process)")
    func unreadInput() async throws {
        let result = try await ProcessRunner.run("/bin/sh", ["-c", "exit 4"], stdin: Data(count: 1 << 20))
        #expect(result.status == 4)
    }

    @Test("the working directory and environment are the ones given")
    func directoryAndEnvironment() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("liveline-runner-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let result = try await ProcessRunner.run("/bin/sh", ["-c", "pwd; echo $LIVELINE_PROBE"], directory: dir, environment: ["LIVELINE_PROBE": "42"])
        #expect(result.stdoutText == "\(dir.resolvingSymlinksInPath().path)\n42\n")
    }

    @Test("a program that cannot be started is an error naming it")
    func missingProgram() async throws {
        await #expect {
            _ = try await ProcessRunner.run("/nonexistent/liveline-tool", [])
        } throws: { error in
            "\(error)".contains("/nonexistent/liveline-tool")
        }
    }

    @Test("a child inherits only descriptors 0, 1 and 2 and its parent watch (3), even ones the test process left inheritable")
    func noInheritedDescriptors() async throws {
        let leaked = open("/dev/null", O_RDONLY)  // no O_CLOEXEC on purpose
        #expect(leaked > 2)
        defer { close(leaked) }
        let result = try await ProcessRunner.run("/bin/sh", ["-c", "ls /proc/$$/fd; readlink /proc/$$/fd/3; echo \"$LIVELINE_PARENT_FD\""])
        let lines = result.stdoutText.split(separator: "\n")
        #expect(lines.prefix(4) == ["0", "1", "2", "3"], "\(result.stdoutText)")
        // Descriptor 3 is the read end of a pipe, named in the environment: the parent watch.
        #expect(lines.count == 6 && lines[4].hasPrefix("pipe:") && lines[5] == "3", "\(result.stdoutText)")
    }

    @Test("a child starts with no standard signal blocked or ignored, whatever thread started it")
    func cleanSignalState() async throws {
        let result = try await ProcessRunner.run("/bin/grep", ["-E", "^Sig(Blk|Ign)", "/proc/self/status"])
        // Masks in hex, bit n-1 for signal n; signals 32 and up are the C library's own.
        let masks = result.stdoutText.split(separator: "\n").compactMap { line in UInt64(line.split(separator: "\t").last ?? "", radix: 16) }
        #expect(masks.count == 2, "\(result.stdoutText)")
        #expect(masks.allSatisfy { $0 & 0x7fff_ffff == 0 }, "\(result.stdoutText)")
    }

    @Test("a child started from a task dies by SIGTERM (a worker thread's blocked SIGTERM is not inherited)")
    func childHonoursSIGTERM() async throws {
        let child = try RunningProcess.start("/bin/sleep", ["5"])
        child.send(SIGTERM)
        let status = try await child.exitStatus(within: .seconds(30))
        #expect(status == 128 + SIGTERM)
    }

    @Test("past its limit a run is killed with everything it started (a grandchild holding the pipes too), and says so")
    func limitKillsTheGroup() async throws {
        // The shell starts a sleeper that inherits its stdout, prints the sleeper's pid, and waits.
        // Killed is the proof the limit acted (a wall-clock bound here would measure how long the
        // awaiting task queued for a cooperative thread, seen at 110 s in a loaded full run).
        let result = try await ProcessRunner.run("/bin/sh", ["-c", "sleep 300 & echo $!; wait"], within: .seconds(1))
        #expect(result.timedOut)
        #expect(result.status == 128 + SIGKILL, "the shell was not killed: \(result.status)")
        let sleeper = try #require(Int32(result.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)), "\(result.stdoutText)")
        try await until("the grandchild \(sleeper) to be gone", within: .seconds(10)) {
            guard let stat = try? String(contentsOfFile: "/proc/\(sleeper)/stat", encoding: .utf8) else { return true }
            return stat.split(separator: " ").dropFirst(2).first == "Z"
        }
        let quick = try await ProcessRunner.run("/bin/sh", ["-c", "echo done"], within: .seconds(60))
        #expect(!quick.timedOut && quick.status == 0 && quick.stdoutText == "done\n")
    }
}
