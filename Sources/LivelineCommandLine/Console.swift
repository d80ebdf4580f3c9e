import Foundation

/// Standard output and error, written with `write(2)` (the C globals do not compile in Swift 6 mode).
public enum Console {
    public static func out(_ text: String) { write(1, text.hasSuffix("\n") ? text : text + "\n") }
    public static func err(_ text: String) { write(2, text.hasSuffix("\n") ? text : text + "\n") }
    private static func write(_ fd: Int32, _ text: String) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let n = bytes.withUnsafeBytes { Foundation.write(fd, $0.baseAddress, $0.count) }
            if n <= 0 { return }
            bytes = bytes.dropFirst(n)
        }
    }
}

/// Reads a file the user named, with an error that names it.
public func readUserFile(_ path: String, what: String) throws(CLIError) -> [UInt8] {
    if path == "-" { return Array(FileHandle.standardInput.readDataToEndOfFile()) }
    guard let data = FileManager.default.contents(atPath: path) else {
        let exists = FileManager.default.fileExists(atPath: path)
        throw CLIError(message: "cannot read \(what) '\(path)': \(exists ? "permission denied or a directory" : "no such file")")
    }
    return Array(data)
}
