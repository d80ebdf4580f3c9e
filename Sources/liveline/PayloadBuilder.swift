import Foundation
import LivelineCommandLine
import LivelineCore
import LivelineUI

/// Builds a Live Activity request from command-line flags or a body file. Shared by
/// `liveline payload` and the commands that send (`send`, `broadcast`).
enum PayloadBuilder {
    /// The options that describe a push.
    static let options: [CommandSpec.Option] = [
        .init(name: "file", valueName: "BODY.json", help: "Start from this request body (the flags below override its fields)."),
        .init(name: "content-state", valueName: "JSON|FILE", help: "The ContentState object, inline JSON or a file."),
        .init(name: "attributes", valueName: "JSON|FILE", help: "start: the static attributes, inline JSON or a file."),
        .init(name: "attributes-type", valueName: "NAME", help: "start: the ActivityAttributes type name (FlightAttributes with --example)."),
        .init(name: "ui", valueName: "LAYOUT.json", help: "Server-driven UI: content-state {uiJsonData} from a layout (VoltraAttributes on start)."),
        .init(name: "ui-compat", valueName: nil, help: "With --ui: encode byte-for-byte as Voltra's own server renderer."),
        .init(name: "props", valueName: "JSON|FILE", help: "Voltra Dynamic Live Activity: content-state {\"props\": …}, inline JSON or a file (check it with --schema)."),
        .init(name: "voltra-dynamic", valueName: "ID", help: "start: the generated attributes-type of Voltra's definition ID (order_finished: VoltraOrderFinishedLiveActivityAttributes)."),
        .init(name: "example", valueName: "NAME", help: "Fill content-state and attributes from a built-in example: flight."),
        .init(name: "alert-title", valueName: "TEXT", help: "Alert title (required on start)."),
        .init(name: "alert-body", valueName: "TEXT", help: "Alert body."),
        .init(name: "alert-title-loc-key", valueName: "KEY", help: "Localized alert title key; arguments with --alert-title-loc-arg."),
        .init(name: "alert-title-loc-arg", valueName: "TEXT", help: "An argument for the title's %@ (repeatable).", repeatable: true),
        .init(name: "alert-loc-key", valueName: "KEY", help: "Localized alert body key; arguments with --alert-loc-arg."),
        .init(name: "alert-loc-arg", valueName: "TEXT", help: "An argument for the body's %@ (repeatable).", repeatable: true),
        .init(name: "sound", valueName: "NAME", help: "Alert sound file in the app bundle, or 'default'."),
        .init(name: "timestamp", valueName: "DATE", help: "When the push was made (default: now)."),
        .init(name: "stale-date", valueName: "DATE", help: "When the activity turns stale."),
        .init(name: "dismissal", valueName: "WHEN", help: "end: immediate, default, or a DATE at most 4 h after the end."),
        .init(name: "relevance-score", valueName: "NUMBER", help: "Orders activities; the highest gets the Dynamic Island."),
        .init(name: "input-push-token", valueName: nil, help: "start (iOS 18+): also issue a per-activity update token."),
        .init(name: "input-push-channel", valueName: "CHANNEL", help: "start (iOS 18+): subscribe the activity to this channel."),
        .init(name: "custom", valueName: "KEY=JSON", help: "A custom key beside aps (repeatable).", repeatable: true),
        .init(name: "bundle-id", valueName: "ID", help: "The app's bundle id; the topic is <ID>.push-type.liveactivity."),
        .init(name: "topic", valueName: "TOPIC", help: "apns-topic, when it is not derived from --bundle-id."),
        .init(name: "priority", valueName: "10|5", help: "apns-priority (default 10; 5 does not count against the budget)."),
        .init(name: "expiration", valueName: "DATE|0", help: "apns-expiration: 0 = try once, or a DATE to keep retrying until."),
        .init(name: "collapse-id", valueName: "ID", help: "apns-collapse-id, at most 64 bytes."),
        .init(name: "apns-id", valueName: "UUID", help: "apns-id (APNs makes one when absent)."),
        .init(name: "schema", valueName: "FILE|NAME", help: "Check content-state against this schema (a file, or a built-in name)."),
    ]

    static let dateHelp = "DATE is \(DateArgument.formats)."

    /// The built-in schemas by name.
    static let builtInSchemas: [String: ActivitySchema] = [
        FlightAttributes.schema.name: FlightAttributes.schema,
        VoltraAttributes.schema.name: VoltraAttributes.schema,
    ]

    struct Built {
        var request: PushRequest
        var push: LiveActivityPush
        var schema: ActivitySchema?
    }

    /// Reads `--schema` as a file path or a built-in name.
    static func schema(_ arguments: Arguments) throws -> ActivitySchema? {
        guard let value = arguments.value("schema") else { return nil }
        if let builtIn = builtInSchemas[value] { return builtIn }
        let bytes = try readUserFile(value, what: "schema file")
        do {
            return try ActivitySchema(json: JSONValue.parse(bytes))
        } catch let error as JSONParseError {
            throw CLIError(message: "schema file '\(value)': \(error)")
        } catch let error as SchemaError {
            throw CLIError(message: "schema file '\(value)': \(error.message)")
        }
    }

    /// Reads a JSON object given inline (`{...}`) or as a file path.
    static func jsonObject(_ text: String, option: String, helpPath: String) throws -> JSONObject {
        let bytes: [UInt8]
        let source: String
        if text.trimmingCharacters(in: .whitespaces).hasPrefix("{") {
            bytes = Array(text.utf8)
            source = "'--\(option)'"
        } else {
            bytes = try readUserFile(text, what: "--\(option) file")
            source = "'--\(option)' file '\(text)'"
        }
        let value: JSONValue
        do { value = try JSONValue.parse(bytes) } catch { throw CLIError(message: "\(source): \(error)") }
        guard let object = value.objectValue else { throw CLIError(message: "\(source) must be a JSON object, got \(value.typeName)") }
        return object
    }

    /// Builds and validates the request for `event` from the flags.
    static func build(_ arguments: Arguments, event: LiveActivityPush.Event, now: Date = Date()) throws -> Built {
        let path = arguments.spec.path
        func date(_ option: String) throws(UsageError) -> Date? {
            try arguments.value(option).map { text throws(UsageError) in try DateArgument.parse(text, option: option, now: now, helpPath: path) }
        }
        var push = LiveActivityPush(event: event, timestamp: now)
        if let file = arguments.value("file") {
            let bytes = try readUserFile(file, what: "body file")
            do {
                push = try LiveActivityPush(body: JSONValue.parse(bytes))
            } catch let error as JSONParseError {
                throw CLIError(message: "body file '\(file)': \(error)")
            } catch let error as PayloadError {
                throw CLIError(message: "body file '\(file)': \(error.message)")
            }
            push.event = event
        }
        if let example = arguments.value("example") {
            guard example == "flight" else { throw arguments.usageError("'--example' knows 'flight', not '\(example)'") }
            let departure = (now.addingTimeInterval(2 * 3600).timeIntervalSinceReferenceDate / 300).rounded(.down) * 300
            let attributes = FlightAttributes.example(departure: Date(timeIntervalSinceReferenceDate: departure))
            let state = FlightAttributes.ContentState(status: .scheduled, gate: "B12", boardingTime: attributes.departure.addingTimeInterval(-40 * 60))
            push.contentState = try JSONValue(encoding: state).objectValue
            if event == .start {
                push.attributes = try JSONValue(encoding: attributes).objectValue
                push.attributesType = FlightAttributes.attributesType
            }
        }
        if let file = arguments.value("ui") {
            if arguments.value("content-state") != nil { throw arguments.usageError("give '--ui' or '--content-state', not both") }
            let layout = try readUserFile(file, what: "layout file")
            do {
                push.contentState = try VoltraPayload.contentState(layoutJSON: layout, mode: arguments.flag("ui-compat") ? .compatible : .compact)
            } catch {
                throw CLIError(message: "layout '\(file)': \(error)")
            }
            if event == .start {
                push.attributesType = VoltraPayload.attributesType
                let name = URL(fileURLWithPath: file).deletingPathExtension().lastPathComponent
                push.attributes = push.attributes ?? VoltraPayload.attributes(name: name)
            }
        } else if arguments.flag("ui-compat") {
            throw arguments.usageError("'--ui-compat' goes with '--ui'")
        }
        if let text = arguments.value("content-state") { push.contentState = try jsonObject(text, option: "content-state", helpPath: path) }
        if let text = arguments.value("props") {  // Voltra's Dynamic Live Activities (VoltraDynamic)
            if arguments.value("content-state") != nil || arguments.value("ui") != nil { throw arguments.usageError("give '--props', '--content-state' or '--ui', one of them") }
            push.contentState = VoltraDynamic.contentState(props: try jsonObject(text, option: "props", helpPath: path))
        }
        if let id = arguments.value("voltra-dynamic") {
            guard VoltraDynamic.isDefinitionID(id) else { throw arguments.usageError("'--voltra-dynamic' takes a definition id (letters, digits and _), got '\(id.prefix(100))'") }
            if event == .start {
                push.attributesType = VoltraDynamic.attributesType(definitionID: id)
                push.attributes = push.attributes ?? ["name": .string(id)]
            }
        }
        if let text = arguments.value("attributes") { push.attributes = try jsonObject(text, option: "attributes", helpPath: path) }
        if let name = arguments.value("attributes-type") { push.attributesType = name }
        if let t = try date("timestamp") { push.timestamp = t }
        if let t = try date("stale-date") { push.staleDate = t }
        if let score = try arguments.double("relevance-score") { push.relevanceScore = score }
        if let dismissal = arguments.value("dismissal") {
            switch dismissal {
            case "immediate": push.dismissal = .immediate
            case "default": push.dismissal = .systemDefault
            default: push.dismissal = .at(try DateArgument.parse(dismissal, option: "dismissal", now: now, helpPath: path))
            }
        }
        if arguments.flag("input-push-token") { push.startInput = .pushToken }
        if let channel = arguments.value("input-push-channel") {
            if arguments.flag("input-push-token") { throw arguments.usageError("give '--input-push-token' or '--input-push-channel', not both") }
            push.startInput = .channel(channel)
        }
        push.alert = try alert(arguments, existing: push.alert)
        for custom in arguments.allValues("custom") {
            guard let eq = custom.firstIndex(of: "="), eq != custom.startIndex else {
                throw arguments.usageError("'--custom' takes KEY=JSON, got '\(custom)'")
            }
            let key = String(custom[..<eq])
            let text = String(custom[custom.index(after: eq)...])
            guard key != "aps" else { throw arguments.usageError("'--custom' cannot set 'aps'; use the other flags") }
            // A value that is not JSON is taken as a string, so --custom deepLink=/flights/1 works.
            push.customKeys[key] = (try? JSONValue.parse(text)) ?? .string(text)
        }

        let bundleID = arguments.value("bundle-id")
        let topic = arguments.value("topic") ?? PushType.liveActivity.topic(forBundleID: bundleID ?? "com.example.app")
        var priority = Priority.immediate
        if let p = try arguments.int("priority") {
            guard let value = Priority(rawValue: p) else { throw arguments.usageError("'--priority' must be 10, 5 or 1, got \(p)") }
            priority = value
        }
        var expiration: Expiration?
        if let e = arguments.value("expiration") {
            expiration = e == "0" ? .immediately : .at(try DateArgument.parse(e, option: "expiration", now: now, helpPath: path))
        }
        var apnsID: UUID?
        if let text = arguments.value("apns-id") {
            guard let uuid = UUID(uuidString: text) else { throw arguments.usageError("'--apns-id' must be a UUID like 123e4567-e89b-12d3-a456-426614174000, got '\(text)'") }
            apnsID = uuid
        }
        var request = PushRequest.liveActivity(push, bundleID: "", priority: priority, expiration: expiration, collapseID: arguments.value("collapse-id"), apnsID: apnsID)
        request.topic = topic
        return Built(request: request, push: push, schema: try schema(arguments))
    }

    private static func alert(_ arguments: Arguments, existing: Alert?) throws -> Alert? {
        var alert = existing ?? Alert()
        var touched = existing != nil
        if let t = arguments.value("alert-title") { alert.title = .plain(t); touched = true }
        if let b = arguments.value("alert-body") { alert.body = .plain(b); touched = true }
        if let k = arguments.value("alert-title-loc-key") {
            alert.title = .localized(key: k, arguments: arguments.allValues("alert-title-loc-arg")); touched = true
        } else if !arguments.allValues("alert-title-loc-arg").isEmpty {
            throw arguments.usageError("'--alert-title-loc-arg' needs '--alert-title-loc-key'")
        }
        if let k = arguments.value("alert-loc-key") {
            alert.body = .localized(key: k, arguments: arguments.allValues("alert-loc-arg")); touched = true
        } else if !arguments.allValues("alert-loc-arg").isEmpty {
            throw arguments.usageError("'--alert-loc-arg' needs '--alert-loc-key'")
        }
        if let s = arguments.value("sound") { alert.sound = s; touched = true }
        return touched ? alert : nil
    }

    /// A Voltra content state's `uiJsonData`, decoded as Voltra's extension decodes it: an error
    /// when the device could not, and would drop the push. Voltra's when the push names
    /// `VoltraAttributes`, the schema is Voltra's, or the content state carries `uiJsonData`.
    static func voltraFindings(_ body: JSONValue, schema: ActivitySchema?) -> [LintFinding] {
        guard let aps = body["aps"], let data = aps["content-state"]?["uiJsonData"] else { return [] }
        let path = "aps.content-state.uiJsonData"
        guard let text = data.stringValue else {
            return [LintFinding(.error, .wrongType, path: path, "expected the string renderLiveActivityToString returns, got \(data.typeName); the device drops the push")]
        }
        do {
            _ = try VoltraDecoder.decode(base64: text)
            return []
        } catch {
            return [LintFinding(.error, LintFinding.Code(rawValue: "invalid-ui"), path: path, "the device cannot decode it and drops the push: \(error)")]
        }
    }

    /// Validates the request and lints its body; throws a `CLIError` listing every error.
    ///
    /// - Returns: the body bytes and the lint warnings.
    static func check(_ built: Built, target: PushRequest.Target = .device, now: Date = Date()) throws -> (body: [UInt8], warnings: [LintFinding]) {
        let bytes: [UInt8]
        do {
            bytes = try built.request.validate(for: target)
        } catch {
            throw CLIError(message: error.message)
        }
        let linter = Linter(schemas: Array(builtInSchemas.values), schema: built.schema, now: now)
        let findings = linter.lint(body: built.request.body).filter { $0.code != .invalidPayload } + voltraFindings(built.request.body, schema: built.schema)
        let errors = findings.filter { $0.severity == .error }
        if !errors.isEmpty {
            throw CLIError(message: "the content does not match its schema:\n" + errors.map { "  \($0)" }.joined(separator: "\n"))
        }
        return (bytes, findings)
    }
}
