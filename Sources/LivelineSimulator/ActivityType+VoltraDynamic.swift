import Foundation
import LivelineCore
import LivelineUI

/// Voltra 2.x's Dynamic Live Activities on the simulated iPhone (docs/from-voltra.md).
extension ActivityType {
    /// A Dynamic Live Activity definition the app bundles: its generated type
    /// (`VoltraDynamic.attributesType(definitionID:)`), decoded as the generated type decodes, and
    /// the layout compiled into the app, called with each content state's props.
    ///
    /// Decoding, as on the device: attributes are `{name, deepLinkUrl?}`; a content state decodes
    /// when it holds a `props` object (any JSON values; other keys ignored); one that does not is
    /// dropped and counted as a decode failure. Rendering happens after: a `layout` that throws
    /// leaves the activity active and showing nothing (`Simulator.shown(_:)` says why), as
    /// Voltra's extension renders an empty view and records a render failure.
    public static func voltraDynamic(definitionID: String, layout: @escaping @Sendable (JSONObject) throws -> UILayout) -> ActivityType {
        voltraDynamic(attributesType: VoltraDynamic.attributesType(definitionID: definitionID), layout: layout)
    }

    /// Decoding as the generated type named `attributesType` does; shown with `layout`, when given.
    /// `.schema` of a props declaration (a simulator setup's schema file) is this without a layout:
    /// the device checks no props, so the declaration is not used to drop anything.
    static func voltraDynamic(attributesType: String, layout: (@Sendable (JSONObject) throws -> UILayout)?) -> ActivityType {
        var render: (@Sendable (JSONValue) throws -> UILayout)?
        if let layout { render = { json in try layout(VoltraDynamic.decodeProps(json).get()) } }
        return ActivityType(
            name: attributesType,
            checkAttributes: { json in decodeError(GeneratedAttributes.self, json, field: "attributes") },
            checkContentState: { json in
                if case .failure(let failure) = VoltraDynamic.decodeProps(json) { return failure.message }
                return nil
            },
            keptAttributes: { json in roundTrip(GeneratedAttributes.self, json) },
            render: render)
    }

    /// The static attributes of every generated type.
    private struct GeneratedAttributes: Codable {
        var name: String
        var deepLinkUrl: String?
    }
}

/// What a simulated iPhone shows for an activity: the layout its content state renders to.
public struct ShownActivity: Sendable {
    /// The activity's attributes type.
    public var attributesType: String
    /// The layout shown, `nil` when it rendered nothing.
    public var layout: UILayout?
    /// Why nothing is shown, when rendering failed (the activity stays active).
    public var renderFailure: String?
    /// The lock screen's text, in order: what a glance at the phone reads.
    public var lockScreenText: [String]
}

extension Simulator {
    /// What the device shows for an activity: its current content state rendered by its type
    /// (Voltra's server-rendered `uiJsonData`, or a Dynamic Live Activity's bundled layout with its
    /// props). `nil` for an unknown activity or a type the simulator does not render.
    public func shown(_ activityID: String) -> ShownActivity? {
        let now = clock.now
        let found: (ActivitySnapshot, ActivityType)? = state.withLock { s in
            s.tick(now)
            guard let a = s.activities[activityID]?.snapshot, let type = s.devices[a.deviceID]?.apps[a.bundleID]?.types[a.attributesType] else { return nil }
            return (a, type)
        }
        guard let (activity, type) = found, let render = type.render else { return nil }
        do {
            let layout = try render(activity.contentState)
            return ShownActivity(attributesType: activity.attributesType, layout: layout, renderFailure: nil,
                                 lockScreenText: layout[.lockScreen].map(Self.texts) ?? [])
        } catch {
            return ShownActivity(attributesType: activity.attributesType, layout: nil, renderFailure: "\(error)", lockScreenText: [])
        }
    }

    private static func texts(_ element: UIElement) -> [String] {
        switch element.children {
        case .text(let t): [t]
        case .single(let e): texts(e)
        case .list(let list): list.flatMap(texts)
        case .none: []
        }
    }
}
