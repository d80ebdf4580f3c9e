import Foundation
import LivelineCore
import LivelinePreview
import LivelineService
import Synchronization

/// Pictures of what the service sent: each send's content drawn on the Lock Screen by
/// LivelinePreview, as `DeviceRendering` draws a simulated device, at the moment it was sent, light
/// and dark, with what was drawn named (the type through its template, or its server-driven UI). A
/// send never changes, so its picture is drawn once and kept (the newest `capacity`).
final class SendPictures: Sendable {
    /// Sends drawn per activity overview (the newest of its deliveries).
    static let perActivity = 6
    /// Pictures kept.
    static let capacity = 512

    private struct Cache {
        var pictures: [Int64: JSONValue] = [:]
        var order: [Int64] = []
    }

    private let cache = Mutex(Cache())

    /// The pictures of the newest `perActivity` sends among `overview`'s deliveries, newest first:
    /// `[{sendID, event, sentAt, drew, lockScreen, lockScreenDark, warnings, error}]`.
    func pictures(for overview: JSONObject, service: Service) throws -> [JSONValue] {
        guard let activityID = overview["activityID"]?.stringValue else { return [] }
        var ids: [Int64] = []
        for d in overview["deliveries"]?.arrayValue ?? [] {
            guard let n = d["sendID"]?.numberValue, let id = Int64(exactly: n), !ids.contains(id) else { continue }
            ids.append(id)
            if ids.count == Self.perActivity { break }
        }
        if ids.isEmpty { return [] }
        let known = cache.withLock { c in ids.compactMap { c.pictures[$0] } }
        if known.count == ids.count { return known }
        guard let content = try service.sentContent(activityID: activityID, sendIDs: ids) else { return [] }
        var drawn: [Int64: JSONValue] = [:]
        for send in content.sends { drawn[send.id] = cache.withLock { $0.pictures[send.id] } ?? Self.picture(send, of: content) }
        cache.withLock { c in
            for (id, picture) in drawn where c.pictures[id] == nil {
                c.pictures[id] = picture
                c.order.append(id)
            }
            if c.order.count > Self.capacity {
                for id in c.order.prefix(c.order.count - Self.capacity) { c.pictures[id] = nil }
                c.order.removeFirst(c.order.count - Self.capacity)
            }
        }
        return ids.compactMap { drawn[$0] }
    }

    /// One send drawn; a body the renderer cannot draw gives the reason instead of a picture.
    static func picture(_ send: SentContent.Send, of content: SentContent) -> JSONValue {
        var o: JSONObject = [
            "sendID": .number(Double(send.id)), "event": .string(send.event), "sentAt": .string(send.createdAt.formatted(.iso8601)),
        ]
        let type = content.attributesType.isEmpty ? nil : content.attributesType
        let body = try? JSONValue.parse(send.body)
        let named = type ?? body?["aps"]?["attributes-type"]?.stringValue ?? "the activity"
        o["drew"] = .string(body?["aps"]?["content-state"]?["uiJsonData"] != nil
            ? "\(named)'s server-driven UI (uiJsonData) as the device decodes it" : "\(named) through its template")
        do {
            var options = PreviewOptions(at: send.createdAt, presentations: [.lockScreen])
            let light = try ActivityPreview.document(apnsBody: send.body, attributesType: type, attributes: content.attributes, options: options)
            o["lockScreen"] = .string(light.fragments[.lockScreen] ?? "")
            options.dark = true
            if let dark = try? ActivityPreview.document(apnsBody: send.body, attributesType: type, attributes: content.attributes, options: options) {
                o["lockScreenDark"] = .string(dark.fragments[.lockScreen] ?? "")
            }
            o["warnings"] = .array(light.warnings.map(JSONValue.string))
        } catch {
            o["error"] = .string("not drawn: \(error)")
        }
        return .object(o)
    }
}
