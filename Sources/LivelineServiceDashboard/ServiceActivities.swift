import Foundation
import LivelineCore
import LivelineDashboardSupport
import LivelineService
import Synchronization

/// The activities the service's page shows: the most recently started ones when the page starts,
/// then each one the service changes (or that is asked for by id), most recently changed first. Changes are coalesced: the page
/// gets at most one refresh of an activity every `coalescing`, however fast a fan-out records verdicts.
final class ServiceActivities: Sendable {
    /// Activities kept on the page.
    static let limit = 200
    static let coalescing: Duration = .milliseconds(50)

    let service: Service
    /// Each send's picture (the overview's `sends`).
    let pictures = SendPictures()

    private struct State {
        var known: [String] = []
        var pending: Set<String> = []
        var everything = false
        var flushScheduled = false
    }

    private let state = Mutex(State())
    /// Counts reads; held across each read, so a higher revision is never older (the page keeps the newest).
    private let revision = Mutex(0)

    init(service: Service) throws {
        self.service = service
        let recent = try service.recentActivityIDs(limit: Self.limit)
        state.withLock { $0.known = recent }
    }

    /// Every known activity's overview, most recently changed first.
    func all() throws -> [JSONValue] {
        try state.withLock { $0.known }.compactMap { try overview($0) }
    }

    /// The service's overview of an activity with `revision`: the page replaces a card only with a newer one.
    /// `sends` has a picture of each of its newest sends (`SendPictures`), drawn outside the revision's lock.
    func overview(_ activityID: String) throws -> JSONValue? {
        let read = try revision.withLock { n -> JSONObject? in
            guard case .object(var o)? = try service.activityOverview(activityID) else { return nil }
            n += 1
            o["revision"] = .number(Double(n))
            return o
        }
        guard var o = read else { return nil }
        o["sends"] = .array(try pictures.pictures(for: o, service: service))
        return .object(o)
    }

    /// One activity's overview (it joins the page's list), or nil when the service does not know it.
    func one(_ activityID: String) throws -> JSONValue? {
        guard let overview = try overview(activityID) else { return nil }
        state.withLock { Self.touch([activityID], &$0) }
        return overview
    }

    /// Notes a change; the first one after a refresh schedules the next refresh of the page.
    func publish(_ change: ServiceChange, to hub: EventHub) {
        let schedule = state.withLock { s -> Bool in
            switch change {
            case .activities(let ids): s.pending.formUnion(ids)
            case .everything: s.everything = true
            }
            defer { s.flushScheduled = true }
            return !s.flushScheduled
        }
        guard schedule else { return }
        Task.detached {
            try? await Task.sleep(for: Self.coalescing)
            self.flush(to: hub)
        }
    }

    /// Sends an `activity` event with the overview of each activity changed since the last refresh.
    func flush(to hub: EventHub) {
        let ids = state.withLock { s -> [String] in
            var ids = s.pending.sorted()
            Self.touch(ids, &s)
            if s.everything { ids = s.known }
            s.pending.removeAll()
            s.everything = false
            s.flushScheduled = false
            return ids
        }
        for id in ids {
            let data: JSONValue
            do {
                guard let overview = try overview(id) else { continue }
                // "kind" goes last: a reader of the raw stream knows the message is whole when it sees it.
                data = ["activity": overview, "kind": "activity"]
            } catch {
                data = ["activityID": .string(id), "error": .string("cannot read the activity: \(error)"), "kind": "read-error"]
            }
            hub.send(event: data["kind"]?.stringValue ?? "activity", data: data.jsonString)
        }
    }

    private static func touch(_ ids: [String], _ s: inout State) {
        let fresh = Set(ids)
        s.known = ids + s.known.filter { !fresh.contains($0) }
        if s.known.count > limit { s.known.removeLast(s.known.count - limit) }
    }
}
