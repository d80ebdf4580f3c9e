import Foundation
import LivelineBrowser
import LivelineCommandLine
import LivelineCore
import LivelinePreview
import LivelineToolSupport
import Synchronization

/// The demo's pictures: after each step, the Lock Screen of what the first simulated iPhone holds
/// (the simulator's inspection gives its attributes and content state), drawn by the preview
/// renderer and photographed at 3x by headless Chromium into a folder the demo prints. Without
/// Chromium the demo says so once and goes on without PNGs.
final class DemoPreviews: Sendable {
    /// The demo's previews: `<tmp>/liveline-demo-previews-<pid>`, one folder per run so demos running
    /// at once do not mix; a finished demo's folder stays until the next demo starts.
    static let shared = DemoPreviews(directory: URL(fileURLWithPath: NSTemporaryDirectory() + folderPrefix + "\(getpid())", isDirectory: true))
    static let folderPrefix = "liveline-demo-previews-"

    let directory: URL
    private let state = Mutex<State>(State())

    private struct State {
        var step = 0
        var browser: Task<PreviewCapture?, Never>?
    }

    init(directory: URL) {
        self.directory = directory
    }

    /// Draws `activity` (an entry of the simulator's `activities`) as this step's PNG and prints where.
    func capture(_ activity: JSONValue) async {
        let (step, started) = state.withLock { state -> (Int, Task<PreviewCapture?, Never>) in
            state.step += 1
            if state.browser == nil { state.browser = Task { await Self.startBrowser(in: self.directory) } }
            return (state.step, state.browser!)
        }
        guard let capture = await started.value else { return }
        let now = Date()
        var options = PreviewOptions(at: now, presentations: [.lockScreen])
        if let stale = activity["staleDate"]?.stringValue.flatMap({ ISO8601DateFormatter().date(from: $0) }) { options.stale = stale <= now }
        do {
            let document = try ActivityPreview.document(attributesType: activity["attributesType"]?.stringValue ?? "", attributes: activity["attributes"],
                                                        contentState: activity["contentState"] ?? .null, options: options)
            let page = directory.appendingPathComponent("step-\(step).html")
            try PreviewCapture.write(document.html, to: page)
            for shot in try await capture.shoot(document, page: page, into: directory, prefix: "step-\(step)-") {
                Console.out("preview  \(shot.file.path)")
            }
        } catch {
            Console.out("preview  step \(step): not drawn: \(error)")
        }
    }

    /// Removes the folders of demos that have exited.
    private static func removeFinishedRuns() {
        let temporary = NSTemporaryDirectory()
        for name in (try? FileManager.default.contentsOfDirectory(atPath: temporary)) ?? [] where name.hasPrefix(folderPrefix) {
            guard let pid = Int32(name.dropFirst(folderPrefix.count)), pid != getpid() else { continue }
            if kill(pid, 0) == -1 && errno == ESRCH { try? FileManager.default.removeItem(atPath: temporary + name) }
        }
    }

    /// The warm browser, or nil after saying once why the demo goes on without PNGs.
    private static func startBrowser(in directory: URL) async -> PreviewCapture? {
        do {
            removeFinishedRuns()
            try PreviewCapture.prepare(directory)
            let capture = try await PreviewCapture.start()
            Console.out("previews \(directory.path) (each step's Lock Screen at 3x, headless Chromium)")
            return capture
        } catch {
            Console.out("previews off: \(error.message); the demo goes on without PNGs")
            return nil
        }
    }
}
