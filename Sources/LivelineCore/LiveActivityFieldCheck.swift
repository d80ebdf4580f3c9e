import Foundation

/// The verdict of `LiveActivityPush(body:)` followed by `validateFields(broadcast:)`, read
/// straight from the JSON without building a `LiveActivityPush` (the per-push hot path).
///
/// `passes` answers true only when that slow path would not throw; for anything it is unsure of
/// it answers false and `validate` runs the slow path, which then names the problem with the same
/// code and message as always. It assumes every number in the body is finite (`validate` checks
/// that first).
enum LiveActivityFieldCheck {
    /// The `aps` keys the slow path reads.
    private enum Key: UInt16 {
        case timestamp, event, contentState, attributes, attributesType, alert, staleDate
        case relevanceScore, dismissalDate, inputPushChannel, inputPushToken

        /// Which key `name` is; compares the length first so most keys cost one string comparison.
        @inline(__always)
        init?(_ name: String) {
            switch name.utf8.count {
            case 5:
                if name == "event" { self = .event } else if name == "alert" { self = .alert } else { return nil }
            case 9:
                if name == "timestamp" { self = .timestamp } else { return nil }
            case 10:
                if name == "stale-date" { self = .staleDate } else if name == "attributes" { self = .attributes } else { return nil }
            case 13:
                if name == "content-state" { self = .contentState } else { return nil }
            case 14:
                if name == "dismissal-date" { self = .dismissalDate } else { return nil }
            case 15:
                if name == "relevance-score" { self = .relevanceScore } else if name == "attributes-type" { self = .attributesType } else { return nil }
            case 16:
                if name == "input-push-token" { self = .inputPushToken } else { return nil }
            case 18:
                if name == "input-push-channel" { self = .inputPushChannel } else { return nil }
            default:
                return nil
            }
        }

        var bit: UInt16 {
            @inline(__always) get { 1 << rawValue }
        }
    }

    /// Whether `body` is a Live Activity push the slow path accepts for this target.
    static func passes(_ body: JSONValue, broadcast: Bool) -> Bool {
        guard case .object(let root) = body else { return false }
        var found: Fields?
        root.members.withUnsafeBufferPointer { members in
            guard let first = members.baseAddress else { return }
            // `root["aps"]`: the first member named "aps", read in place.
            for index in 0..<members.count where (first + index).pointee.key == "aps" {
                if case .object(let aps) = (first + index).pointee.value {
                    found = aps.members.withUnsafeBufferPointer { Fields($0) }
                }
                return
            }
        }
        guard let fields = found else { return false }
        return fields.pass(broadcast: broadcast)
    }

    /// What the slow path reads from `aps`; nil when a field has the wrong JSON type.
    private struct Fields {
        var event: LiveActivityPush.Event?
        var timestamp: Double?
        var dismissal: Double?
        var hasContentState = false, hasAttributes = false, hasAttributesType = false, hasAlert = false
        var attributesTypeIsEmpty = false
        var channelIsString = false
        var tokenIsOne = false

        /// Reads the members in place (no copy of each key and value out of the array).
        init?(_ members: UnsafeBufferPointer<JSONObject.Member>) {
            guard let first = members.baseAddress else { return nil }
            var seen: UInt16 = 0
            for index in 0..<members.count {
                let member = first + index
                guard let key = Key(member.pointee.key) else { continue }
                // Like a subscript lookup, only the first member with a name counts.
                let bit = key.bit
                if seen & bit != 0 { continue }
                seen |= bit
                guard read(key, member.pointer(to: \.value)!) else { return nil }
            }
        }

        /// Records one field; false when its JSON type is wrong.
        private mutating func read(_ key: Key, _ value: UnsafePointer<JSONValue>) -> Bool {
            switch key {
            case .event:
                guard case .string(let name) = value.pointee else { return false }
                // `Event(rawValue:)` without its generic string switch.
                switch name.utf8.count {
                case 3 where name == "end": event = .end
                case 5 where name == "start": event = .start
                case 6 where name == "update": event = .update
                default: return false
                }
            case .timestamp:
                guard case .number(let n) = value.pointee else { return false }
                timestamp = n
            case .staleDate:
                guard case .number = value.pointee else { return false }
            case .dismissalDate:
                guard case .number(let n) = value.pointee else { return false }
                dismissal = n
            case .relevanceScore:
                guard case .number(let n) = value.pointee, n.isFinite else { return false }
            case .contentState:
                guard case .object = value.pointee else { return false }
                hasContentState = true
            case .attributes:
                guard case .object = value.pointee else { return false }
                hasAttributes = true
            case .attributesType:
                guard case .string(let name) = value.pointee else { return false }
                hasAttributesType = true
                attributesTypeIsEmpty = name.isEmpty
            case .alert:
                switch value.pointee {
                case .string, .object: hasAlert = true
                default: return false
                }
            case .inputPushChannel:
                if case .string = value.pointee { channelIsString = true }
            case .inputPushToken:
                if case .number(let n) = value.pointee, n == 1 { tokenIsOne = true }
            }
            return true
        }

        /// The rules of `validateFields` for the event read.
        func pass(broadcast: Bool) -> Bool {
            guard let event else { return false }
            switch event {
            case .start:
                return !broadcast && hasAlert && hasAttributesType && !attributesTypeIsEmpty && hasAttributes && hasContentState
                    && dismissal == nil
            case .update:
                return hasContentState && !hasAttributes && !hasAttributesType && !channelIsString && !tokenIsOne && dismissal == nil
            case .end:
                guard !hasAttributes && !hasAttributesType && !channelIsString && !tokenIsOne else { return false }
                guard let dismissal else { return true }
                // The slow path's `.at(date)` case and its 4-hour limit, computed the same way.
                guard let timestamp else { return true }
                let date = Date(timeIntervalSince1970: dismissal)
                let start = Date(timeIntervalSince1970: timestamp)
                if date < start { return true }  // `.immediate`
                return !(date.timeIntervalSince(start) > 4 * 3600)
            }
        }
    }
}
