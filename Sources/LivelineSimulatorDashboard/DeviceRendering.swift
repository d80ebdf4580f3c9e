import Foundation
import LivelineCore
import LivelinePreview
import LivelineSimulator

/// An activity drawn for the page: one HTML fragment per presentation, and the renderer's warnings.
struct RenderedActivity: Sendable {
    /// By presentation (`lock-screen`, `island-compact`, `island-minimal`, `island-expanded`).
    var fragments: [String: String]
    var warnings: [String]
}

/// The one place the dashboard turns an activity into pictures: LivelinePreview's renderer, as
/// the device would draw the content it holds, at the simulator's clock.
enum DeviceRendering {
    /// The presentations drawn, in page order (and the dark Lock Screen).
    static let presentations = Presentation.standard.map(\.rawValue) + [darkLockScreen]

    /// The key of the Lock Screen drawn in the dark appearance.
    static let darkLockScreen = "lock-screen-dark"

    /// The renderer's stylesheet (the same for every fragment), sent once per page.
    static let stylesheet = ActivityPreview.stylesheet

    /// Draws `activity` as its device shows it at `now` (an ended one on the Lock Screen only, as iOS
    /// removes it from the Dynamic Island); a state the renderer cannot draw becomes
    /// a warning with the reason and a plain listing of the content.
    static func render(_ activity: ActivitySnapshot, at now: Date) -> RenderedActivity {
        let options = PreviewOptions(at: now, stale: activity.state == .stale, ended: activity.state == .ended || activity.state == .dismissed)
        do {
            let document = try ActivityPreview.document(attributesType: activity.attributesType, attributes: activity.attributes,
                                                        contentState: activity.contentState, options: options)
            var fragments: [String: String] = [:]
            for (presentation, html) in document.fragments { fragments[presentation.rawValue] = html }
            // The Lock Screen in the dark appearance too (the Island is black in both): the page shows
            // the one that matches its own colour scheme.
            var dark = options
            dark.dark = true
            dark.presentations = [.lockScreen]
            if let html = try? ActivityPreview.document(attributesType: activity.attributesType, attributes: activity.attributes,
                                                        contentState: activity.contentState, options: dark).fragments[.lockScreen] {
                fragments[Self.darkLockScreen] = html
            }
            return RenderedActivity(fragments: fragments, warnings: document.warnings)
        } catch {
            var rows = ""
            for member in activity.contentState.objectValue ?? [:] {
                rows += "<div><b>\(HTMLText.escape(member.key))</b> \(HTMLText.escape(member.value.stringValue ?? member.value.jsonString))</div>"
            }
            return RenderedActivity(fragments: ["lock-screen": "<div class=\"plain\">\(rows)</div>"], warnings: ["\(error)"])
        }
    }
}
