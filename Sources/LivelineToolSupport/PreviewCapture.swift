import Foundation
import LivelineBrowser
import LivelineCommandLine
import LivelinePreview

/// Screenshots of a preview page's presentations from one warm headless Chromium (the preview
/// command, the demo and `liveline-bench ui` share it).
public struct PreviewCapture: Sendable {
    public let browser: HeadlessBrowser

    /// One PNG written.
    public struct Shot: Sendable {
        public var box: PreviewBox
        public var file: URL
        public var pixelWidth: Int
        public var pixelHeight: Int
    }

    /// Starts Chromium at 3x.
    /// - Throws: `CLIError` saying what is missing or what Chromium printed.
    public static func start() async throws(CLIError) -> PreviewCapture {
        do { return PreviewCapture(browser: try await HeadlessBrowser.start()) } catch {
            throw CLIError(message: "cannot draw PNGs: \(error.description)")
        }
    }

    /// Opens `page` and writes each box's screenshot to `<directory>/<prefix><presentation>.png`;
    /// a PNG whose size is not the box's at the browser's scale (the page overflowing it) is an error.
    /// Chromium rounds a fractional box outward to whole device pixels: up to 2 more is the same box.
    public func shoot(_ document: PreviewDocument, page: URL, into directory: URL, prefix: String = "") async throws -> [Shot] {
        try await browser.navigate(to: page.absoluteString)
        var shots: [Shot] = []
        for box in document.boxes {
            let png = try await browser.screenshot(of: try await browser.element(box.selector))
            let image = try PNGImage.size(png: png)
            let scale = Double(browser.scale)
            guard abs(Double(image.width) - box.width * scale) <= 2, abs(Double(image.height) - box.height * scale) <= 2 else {
                throw CLIError(message: "\(box.presentation.rawValue): the screenshot is \(image.width)x\(image.height) px, "
                    + "not the box's \(Self.points(box.width))x\(Self.points(box.height)) pt at \(browser.scale)x")
            }
            let file = directory.appendingPathComponent(prefix + box.presentation.rawValue + ".png")
            try Self.write(Data(png), to: file)
            shots.append(Shot(box: box, file: file, pixelWidth: image.width, pixelHeight: image.height))
        }
        return shots
    }

    /// Makes `directory` (and its parents) unless it exists as a directory.
    public static func prepare(_ directory: URL) throws(CLIError) {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else { throw CLIError(message: "'--out' \(directory.path) is a file, not a directory") }
            return
        }
        do { try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true) } catch {
            throw CLIError(message: "cannot make the '--out' directory \(directory.path): \(Self.reason(error))")
        }
    }

    public static func write(_ text: String, to file: URL) throws(CLIError) { try write(Data(text.utf8), to: file) }

    public static func write(_ data: Data, to file: URL) throws(CLIError) {
        do { try data.write(to: file) } catch { throw CLIError(message: "cannot write \(file.path): \(reason(error))") }
    }

    /// The system's words for a file error (permission denied, no space) rather than Foundation's wrapper.
    private static func reason(_ error: any Error) -> String {
        if let underlying = (error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(underlying.code)))
        }
        return (error as NSError).localizedDescription
    }

    /// `360`, or `36.5` for a fractional size.
    public static func points(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(format: "%.1f", value)
    }
}
