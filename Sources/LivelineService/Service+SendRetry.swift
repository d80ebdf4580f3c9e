import Foundation
import LivelineCore

/// Thrown inside a send's transaction when the activity it read was changed since by another
/// request (ended, advanced by another update, or started again): nothing of the send is kept.
struct ActivityChanged: Error {}

extension Service {
    /// How often an update or end is tried when other requests keep changing its activity.
    static let sendTries = 8

    /// An update or end. Each try reads the activity, checks the push against it and writes the
    /// send, its outbox rows and the activity's new end or timestamp only if the activity is still
    /// as read (`setActivityTimes`): an update racing an end can no longer erase the end, and two
    /// racing updates cannot give their pushes one timestamp. A lost race is tried again on the new
    /// state (an update then meets the end and is refused with 409).
    func send(_ c: RequestContext, event: LiveActivityPush.Event) throws -> Answer {
        for _ in 1..<Self.sendTries {
            do { return try sendOnce(c, event: event) } catch is ActivityChanged { continue }
        }
        do { return try sendOnce(c, event: event) } catch is ActivityChanged {
            throw APIError(409, "activity-busy", "activity \(c.param("activityID")) was changed by other requests during each of \(Self.sendTries) tries of this \(event.rawValue); nothing was sent: try again")
        }
    }
}
