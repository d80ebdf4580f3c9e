import Foundation

extension PushRequest {
    /// Where a request goes, which sets its size limit.
    public enum Target: Sendable, Hashable {
        /// `/3/device/<token>`: 4096 bytes (5120 for VoIP).
        case device
        /// `/4/broadcasts/apps/<bundle id>`: 5120 bytes; no topic.
        case broadcast
    }

    /// The largest body APNs accepts for this request at `target`.
    public func maxBodyBytes(for target: Target) -> Int {
        target == .broadcast ? 5120 : pushType.maxPayloadBytes
    }

    /// Checks everything APNs or ActivityKit would refuse or silently drop, before anything is sent.
    ///
    /// - Returns: the exact body bytes that were checked, ready to send.
    /// - Throws: `PayloadError` naming the problem, the value and the limit.
    @discardableResult
    public func validate(for target: Target = .device) throws(PayloadError) -> [UInt8] {
        // One pass serializes and notes non-finite numbers; errors still come in the order below.
        let (bytes, allFinite) = JSONCompactWriter.serialize(body)
        if !allFinite { try checkNumbers(body, path: "") }
        if let collapseID, collapseID.utf8.count > 64 {
            throw PayloadError(.collapseIDTooLong, "apns-collapse-id is \(collapseID.utf8.count) bytes; the limit is 64 bytes")
        }
        let isLiveActivity = pushType == .liveActivity
        let rules = isLiveActivity ? Self.liveActivityRules : TypeRules(pushType)
        if let priority, rules.allowedPriorityMask & (1 << UInt16(priority.rawValue)) == 0 {
            let allowed = pushType.allowedPriorities.map { String($0.rawValue) }.joined(separator: " or ")
            throw PayloadError(.priorityNotAllowed, "apns-priority \(priority.rawValue) is not allowed for \(pushType) pushes; use \(allowed)")
        }
        if target == .device, let suffix = rules.topicSuffix {
            let fits = suffix.isEmpty ? !Self.knownSuffixes.contains { topic.hasSuffix($0) } : topic.hasSuffix(suffix) && topic.utf8.count > suffix.utf8.count
            if topic.isEmpty || !fits {
                let expected = suffix.isEmpty ? "the bare bundle id" : "<bundle id>\(suffix)"
                throw PayloadError(.topicMismatch, "apns-topic \"\(topic)\" does not fit push type \(pushType); expected \(expected)")
            }
            if !suffix.isEmpty, let error = Self.doubledSuffix(topic.dropLast(suffix.utf8.count)) { throw error }
        }
        if isLiveActivity, !LiveActivityFieldCheck.passes(body, broadcast: target == .broadcast) {
            // The slow path names the problem exactly as it always has.
            let push = try LiveActivityPush(body: body)
            try push.validateFields(broadcast: target == .broadcast)
        }
        let limit = maxBodyBytes(for: target)
        if bytes.count > limit {
            let largest = Self.largestFields(of: body, count: 3).map { "\($0.path) (\($0.bytes) bytes)" }.joined(separator: ", ")
            throw PayloadError(.payloadTooLarge, "the body is \(bytes.count) bytes; the limit is \(limit) bytes. Largest fields: \(largest)")
        }
        return bytes
    }

    /// A push type's rules as `validate` reads them, computed once for Live Activities (the bulk
    /// case) instead of on every push.
    private struct TypeRules: Sendable {
        /// Bit `p` set when priority `p` is allowed.
        let allowedPriorityMask: UInt16
        let topicSuffix: String?
        init(_ type: PushType) {
            allowedPriorityMask = type.allowedPriorities.reduce(0) { $0 | 1 << UInt16($1.rawValue) }
            topicSuffix = type.topicSuffix
        }
    }

    private static let liveActivityRules = TypeRules(.liveActivity)

    private static let knownSuffixes = PushType.all.compactMap(\.topicSuffix).filter { !$0.isEmpty }
    private static let pushTypeSuffixes = knownSuffixes.filter { $0.hasPrefix(".push-type.") }

    /// The error for a bundle id that already ends in a push-type suffix
    /// (`com.example.flights.push-type.liveactivity`): APNs would get the suffix twice.
    /// `nil` for a plain bundle id. The service and the command line call it on the ids they are given.
    /// Only the `.push-type.` suffixes count: a bundle id may well end in `.voip`.
    public static func doubledSuffix(_ bundleID: Substring) -> PayloadError? {
        guard let suffix = pushTypeSuffixes.first(where: { bundleID.hasSuffix($0) }) else { return nil }
        return PayloadError(.bundleIDHasSuffix, "the bundle id \"\(bundleID)\" already ends in \"\(suffix)\": give the app's own bundle id (\"\(bundleID.dropLast(suffix.utf8.count))\"); the push type's suffix is added for you")
    }

    private func checkNumbers(_ value: JSONValue, path: String) throws(PayloadError) {
        switch value {
        case .number(let n) where !n.isFinite:
            throw PayloadError(.nonFiniteNumber, "\(path.isEmpty ? "the body" : path) is \(n), which JSON cannot carry: numbers must be finite")
        case .array(let items):
            for (i, item) in items.enumerated() { try checkNumbers(item, path: "\(path)[\(i)]") }
        case .object(let object):
            for member in object { try checkNumbers(member.value, path: path.isEmpty ? member.key : "\(path).\(member.key)") }
        default: break
        }
    }

    /// The `count` largest leaf-most fields worth naming: members of `aps`, of `content-state` and
    /// `attributes`, and custom keys, with their serialized sizes.
    public static func largestFields(of body: JSONValue, count: Int) -> [(path: String, bytes: Int)] {
        var sizes: [(path: String, bytes: Int)] = []
        func visit(_ value: JSONValue, path: String, depth: Int) {
            guard let object = value.objectValue else { return }
            for member in object {
                let childPath = path.isEmpty ? member.key : "\(path).\(member.key)"
                let size = member.key.utf8.count + 3 + member.value.serializedSize
                if depth < 2, member.value.objectValue != nil, member.value.serializedSize > 64 {
                    visit(member.value, path: childPath, depth: depth + 1)
                } else {
                    sizes.append((childPath, size))
                }
            }
        }
        visit(body, path: "", depth: 0)
        return Array(sizes.sorted { $0.bytes > $1.bytes }.prefix(count))
    }
}

extension LiveActivityPush {
    /// The rules of apns-protocol.md §3.3 for each event.
    func validateFields(broadcast: Bool) throws(PayloadError) {
        switch event {
        case .start:
            if broadcast { throw PayloadError(.fieldNotAllowed, "a broadcast cannot start a Live Activity; send start to a push-to-start token") }
            if alert == nil {
                throw PayloadError(.startMissingAlert, "a start push needs aps.alert: without it APNs answers 200 and the device drops the push")
            }
            if attributesType?.isEmpty ?? true {
                throw PayloadError(.startMissingAttributesType, "a start push needs aps.attributes-type, the Swift ActivityAttributes type name (e.g. \"FlightAttributes\")")
            }
            if attributes == nil {
                throw PayloadError(.startMissingAttributes, "a start push needs aps.attributes, the static attributes of \(attributesType ?? "the activity")")
            }
            if contentState == nil {
                throw PayloadError(.missingContentState, "a start push needs aps.content-state, the initial ContentState")
            }
        case .update:
            if contentState == nil {
                throw PayloadError(.missingContentState, "an update push needs aps.content-state; without it there is nothing to show")
            }
        case .end:
            break
        }
        if event != .start {
            if attributes != nil || attributesType != nil {
                throw PayloadError(.fieldNotAllowed, "aps.attributes and aps.attributes-type belong to start pushes only, not \(event.rawValue)")
            }
            if startInput != .none {
                throw PayloadError(.fieldNotAllowed, "aps.input-push-token and aps.input-push-channel belong to start pushes only, not \(event.rawValue)")
            }
        }
        if event != .end, dismissal != .systemDefault {
            throw PayloadError(.fieldNotAllowed, "aps.dismissal-date belongs to end pushes only, not \(event.rawValue)")
        }
        if case .at(let date) = dismissal, let timestamp, date.timeIntervalSince(timestamp) > 4 * 3600 {
            let hours = (date.timeIntervalSince(timestamp) / 3600 * 10).rounded() / 10
            throw PayloadError(.dismissalTooLate, "aps.dismissal-date is \(hours) hours after the end; ActivityKit removes an ended activity after at most 4 hours")
        }
        if let relevanceScore, !relevanceScore.isFinite {
            throw PayloadError(.nonFiniteNumber, "aps.relevance-score is \(relevanceScore); it must be a finite number")
        }
    }
}
