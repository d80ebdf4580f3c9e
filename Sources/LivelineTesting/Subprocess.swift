import Foundation

/// Runs short-lived tools (the `openssl` binary) to completion and reports their failures.
enum Subprocess {
    /// Runs `executable` with `arguments`, waits for it, throws with its stderr when it fails.
    @discardableResult
    static func run(_ executable: String, _ arguments: [String], input: Data? = nil) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        let inPipe = Pipe()
        process.standardInput = input == nil ? FileHandle.nullDevice : inPipe
        do {
            try process.run()
        } catch {
            throw TestingError("cannot run \(executable): \(error)")
        }
        if let input {
            inPipe.fileHandleForWriting.write(input)
            try? inPipe.fileHandleForWriting.close()
        }
        // Read both pipes fully before waiting so a chatty tool cannot block on a full pipe.
        let errorData = Mutexed<Data>(Data())
        let group = DispatchGroup()
        group.enter()
        DispatchQueue.global().async {
            errorData.set(err.fileHandleForReading.readDataToEndOfFile())
            group.leave()
        }
        let output = out.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let message = String(decoding: errorData.get(), as: UTF8.self)
            let command = ([executable] + arguments).joined(separator: " ")
            throw TestingError("`\(command)` exited with status \(process.terminationStatus): \(message)")
        }
        return output
    }
}
