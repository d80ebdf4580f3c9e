import Foundation
import LivelineCore
import LivelineStore
import LivelineUI

/// Activity aliases (migration `12-activity-aliases`): the other names an app's phones use for an
/// activity. A Voltra start's `attributes.name` (the name Voltra's events carry) and a phone's own
/// ActivityKit activity id (`Activity.id`, reported with its update token) resolve to the logical
/// id on every installation route that takes `{activityID}`. The backend's routes take the logical
/// id only: it chose that id and names it in every start, update and end.
extension Service {
    /// The logical id an installation means by `given`. A logical id is never shadowed: an existing
    /// activity wins over any alias. A name alias resolves for every installation of its app; a
    /// phone's activity id only for the installation that reported it. Anything else stays as given
    /// (and gets the route's usual 404).
    func resolveActivityID(_ given: String, installation: InstallationRecord?, _ tx: any StoreTransaction) throws -> String {
        guard let installation else { return given }
        if try tx.activity(given) != nil { return given }
        guard let alias = try tx.activityAlias(bundleID: installation.bundleID, alias: given) else { return given }
        if let owner = alias.deviceID, owner != installation.installationID { return given }
        return alias.activityID
    }

    /// A VoltraAttributes start's `attributes.name` when it differs from the activity id: the alias
    /// to record (`recordVoltraName`). A name in the installations' namespace is refused.
    static func voltraName(_ type: String, _ attributes: JSONObject, activityID: String) throws -> String? {
        guard type == VoltraAttributes.attributesType, let name = attributes["name"]?.stringValue, name != activityID else { return nil }
        if name.isEmpty || name.utf8.count > 200 { throw APIError.invalid("attributes.name", "must be 1 to 200 bytes of text") }
        if isInstallationNamespace(name) {
            throw APIError.invalid("attributes.name", "'inst_…:…' is the namespace of activities apps start themselves; choose another name")
        }
        return name
    }

    /// Records Voltra's `name` as an alias of `activityID` in the start's transaction. A name that is
    /// another activity's id is refused (400); one that already names another activity of the app, 409.
    func recordVoltraName(_ name: String, activityID: String, bundleID: String, _ tx: any StoreTransaction, now: Date) throws {
        if try tx.activity(name) != nil {
            throw APIError.invalid("attributes.name", "is \"\(name)\", the id of another activity: Voltra's app would report tokens and taps for that one; choose another name (or leave name out)")
        }
        if try tx.insertActivityAlias(ActivityAliasRecord(bundleID: bundleID, alias: name, activityID: activityID, deviceID: nil, createdAt: now)) { return }
        let existing = try tx.activityAlias(bundleID: bundleID, alias: name)
        if let existing, existing.activityID == activityID, existing.deviceID == nil { return }
        let whose = existing?.deviceID == nil ? " (activity \(existing?.activityID ?? "?"))" : ""
        throw APIError(409, "alias-taken", "attributes.name: \"\(name)\" already names another activity of \(bundleID)\(whose): Voltra's events could not tell them apart; choose another name", field: "attributes.name")
    }

    /// Attaches a phone's own ActivityKit activity id to the activity it registers a token for. The
    /// caller has already shown it holds `activityID` (`mayHold`). The alias is the device's alone;
    /// it must look like `Activity.id` (a UUID) and may not be an activity's id or another alias.
    /// Device activity ids one installation may attach to one activity (its runs: started, ended, started again).
    static let deviceAliasesPerActivity = 4

    func attachDeviceActivityID(_ alias: String, to activityID: String, bundleID: String, deviceID: String, _ tx: any StoreTransaction, now: Date) throws {
        guard alias != activityID else { return }
        guard UUID(uuidString: alias) != nil else {
            throw APIError.invalid("deviceActivityID", "must be the phone's ActivityKit activity id (Activity.id, a UUID), got \"\(alias.prefix(60))\"")
        }
        let taken = APIError(409, "alias-taken", "deviceActivityID: \(alias) is already another activity's id or alias; nothing was changed", field: "deviceActivityID")
        if try tx.activity(alias) != nil { throw taken }
        // A phone has one Activity.id per run of an activity: a few runs, not an unbounded stream of rows.
        let own = try tx.activityAliases(activityID: activityID).filter { $0.bundleID == bundleID && $0.deviceID == deviceID }
        if own.contains(where: { $0.alias == alias }) { return }
        if own.count >= Self.deviceAliasesPerActivity {
            throw APIError(409, "too-many-aliases", "deviceActivityID: this installation already reported \(own.count) activity ids for \(activityID) (at most \(Self.deviceAliasesPerActivity)); nothing was changed", field: "deviceActivityID")
        }
        if try tx.insertActivityAlias(ActivityAliasRecord(bundleID: bundleID, alias: alias, activityID: activityID, deviceID: deviceID, createdAt: now)) { return }
        guard let existing = try tx.activityAlias(bundleID: bundleID, alias: alias), existing.activityID == activityID, existing.deviceID == deviceID else { throw taken }
    }

    /// A start's id that is already an alias of another activity of the app is refused: the logical
    /// id would shadow the alias, and the phones using it would reach another activity.
    func refuseAliasedID(_ activityID: String, bundleID: String, _ tx: any StoreTransaction) throws {
        guard let alias = try tx.activityAlias(bundleID: bundleID, alias: activityID), alias.activityID != activityID else { return }
        let whose = alias.deviceID == nil ? " (Voltra's name of activity \(alias.activityID))" : ""
        throw APIError(409, "alias-taken", "activity id \(activityID) is already another activity's alias in \(bundleID)\(whose); start it under another id", field: "activityID")
    }

    /// `GET /v1/activities/{id}` with its aliases (`aliases`, left out when there are none): Voltra's
    /// name (`kind` "name") and each phone's activity id (`kind` "device", with its `deviceID`).
    static func withAliases(_ overview: JSONValue, activityID: String, _ tx: any StoreTransaction) throws -> JSONValue {
        let aliases = try tx.activityAliases(activityID: activityID)
        guard !aliases.isEmpty, var o = overview.objectValue else { return overview }
        o["aliases"] = .array(aliases.map { a in
            var entry: JSONObject = ["alias": .string(a.alias), "kind": .string(a.deviceID == nil ? "name" : "device")]
            if let d = a.deviceID { entry["deviceID"] = .string(d) }
            return .object(entry)
        })
        return .object(o)
    }
}
