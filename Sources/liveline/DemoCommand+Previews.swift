import Foundation
import LivelineBrowser
import LivelineCommandLine
import LivelineCore
import LivelinePreview
import LivelineToolSupport
import LivelineUI
import Synchronization

/// The demo's pictures: after each step, the Lock Screen of what the first simulated iPhone holds
/// (the simulator's inspection gives its attributes and content state), drawn by the preview
/// renderer and photographed at 3x by headless Chromium into a folder the demo prints. Without
/// Chromium the demo says so once and goes on without PNGs.
final class DemoPreviews: Sendable {
    /// The demo's previews: `<tmp>/liveline-demo-previews-<pid>`, one folder per run so demos running
    /// at once do not mix; a finished demo's folder stays until a demo starts 10 minutes after it.
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
        let moment = Self.moment(of: activity, now: Date())
        let options = PreviewOptions(at: moment.at, presentations: [.lockScreen], stale: moment.stale, ended: moment.ended)
        do {
            let document = try ActivityPreview.document(attributesType: activity["attributesType"]?.stringValue ?? "", attributes: activity["attributes"],
                                                        contentState: activity["contentState"] ?? .null, options: options)
            let page = directory.appendingPathComponent("step-\(step).html")
            try PreviewCapture.write(document.html, to: page)
            for shot in try await capture.shoot(document, page: page, into: directory, prefix: "step-\(step)-") {
                Console.out("preview  \(shot.file.path)")
            }
            Console.out("preview  step \(step) \(moment.story)" + (ActivityPreview.design(of: activity["attributesType"]?.stringValue ?? "").map { "; \($0)" } ?? ""))
        } catch {
            Console.out("preview  step \(step): not drawn: \(error)")
        }
    }

    /// When a step happens in the flight's story, which the picture is drawn at (the demo sends
    /// every step within a minute of wall-clock time, but a landed flight is hours past boarding).
    struct Moment: Equatable {
        var at: Date
        var stale: Bool
        var ended: Bool
        /// The moment in words, for the demo's output.
        var story: String
    }

    /// The flight's time in the air (Lisbon to Zurich), for the story's landing.
    static let flightDuration: TimeInterval = 2 * 3600 + 35 * 60

    /// The story's moment of the activity's state: a waiting flight now, boarding 5 minutes after
    /// boarding time, a departed flight 10 minutes after its (delayed) departure, a landed one 5
    /// minutes after landing, an ended one 30 minutes after landing. Stale when its stale date has
    /// passed by then, unless ended (an ended activity is `.ended`, not `.stale`).
    static func moment(of activity: JSONValue, now: Date) -> Moment {
        let ended = ["ended", "dismissed"].contains(activity["state"]?.stringValue ?? "")
        let staleDate = activity["staleDate"]?.stringValue.flatMap { ISO8601DateFormatter().date(from: $0) }
        func moment(_ at: Date, _ story: String) -> Moment {
            let stale = !ended && staleDate.map { $0 <= at } == true
            return Moment(at: at, stale: stale, ended: ended, story: story + (stale ? ", stale" : "") + (ended ? ", ended" : ""))
        }
        guard let attributes = try? (activity["attributes"] ?? .null).decode(FlightAttributes.self),
              let state = try? (activity["contentState"] ?? .null).decode(FlightAttributes.ContentState.self) else {
            return moment(now, "drawn now")
        }
        let departs = attributes.departure.addingTimeInterval(TimeInterval(state.delayMinutes * 60))
        let landing = departs.addingTimeInterval(flightDuration)
        switch FlightTemplate.phase(state) {
        case .waiting, .cancelled: return moment(now, "drawn now")
        case .boarding: return moment(max(now, state.boardingTime.addingTimeInterval(5 * 60)), "drawn 5 min after boarding time")
        case .departed: return moment(max(now, departs.addingTimeInterval(10 * 60)), "drawn 10 min after departure")
        case .landed:
            return ended ? moment(max(now, landing.addingTimeInterval(30 * 60)), "drawn 30 min after landing")
                : moment(max(now, landing.addingTimeInterval(5 * 60)), "drawn 5 min after landing")
        }
    }

    /// Removes the folders of demos that have exited and were last written more than
    /// `keptFor` ago: whoever ran a demo a moment ago may still be looking at its pictures (a test
    /// reading them after the demo exited lost them to a demo started meanwhile).
    private static func removeFinishedRuns(keptFor: TimeInterval = 600) {
        let temporary = NSTemporaryDirectory()
        for name in (try? FileManager.default.contentsOfDirectory(atPath: temporary)) ?? [] where name.hasPrefix(folderPrefix) {
            guard let pid = Int32(name.dropFirst(folderPrefix.count)), pid != getpid() else { continue }
            guard kill(pid, 0) == -1 && errno == ESRCH else { continue }
            let written = (try? FileManager.default.attributesOfItem(atPath: temporary + name)[.modificationDate] as? Date) ?? .distantPast
            if Date().timeIntervalSince(written) > keptFor { try? FileManager.default.removeItem(atPath: temporary + name) }
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
