import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The tool's executables find each other in one directory: `liveline bench` runs the
/// `liveline-bench` built beside it, and the benchmarks run `liveline serve` from beside themselves.
public enum SiblingExecutable {
    /// The directory of the running executable (`/proc/self/exe` resolved, else `argv[0]`'s).
    public static var directory: URL {
        let own = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: own).deletingLastPathComponent()
    }

    /// The path of executable `name` beside this one, or an error naming the directory and the
    /// command that builds it.
    public static func path(_ name: String, neededBy user: String) throws(CLIError) -> String {
        let candidate = directory.appendingPathComponent(name).path
        guard FileManager.default.isExecutableFile(atPath: candidate) else {
            throw CLIError(message: "\(user) runs \(name), which is not built: no \(candidate)\n"
                + "hint: build it with 'swift build --product \(name)' (add '-c release' for a release build)")
        }
        return candidate
    }

    /// Replaces this process with executable `name` from beside it, run with `arguments`: the
    /// same process id, standard input, output and error, environment and signals, and its exit
    /// code becomes this command's. Returns only on failure, with the error.
    public static func replaceProcess(with name: String, _ arguments: [String], neededBy user: String) -> CLIError {
        let path: String
        do { path = try self.path(name, neededBy: user) } catch { return error }
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        execv(path, argv)
        let reason = String(cString: strerror(errno))
        for pointer in argv { free(pointer) }
        return CLIError(message: "cannot run \(path): \(reason)")
    }
}
