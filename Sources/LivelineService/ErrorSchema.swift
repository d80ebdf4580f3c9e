import LivelineCore

/// The published shape of every error answer (`/openapi.json`): the members `APIError.json` writes,
/// its `details` included. A member added to an error's details is declared here too
/// (ServiceContractTests checks real error answers against this schema).
extension Service {
    static var errorSchema: JSONValue {
        let finding = Schema.object([("severity", ["type": "string", "enum": ["error", "warning"]]), ("code", Schema.string), ("path", Schema.string),
                                     ("message", Schema.string), ("text", Schema.string)], required: ["severity", "code", "path", "message"])
        let error = Schema.object([
            ("code", Schema.string), ("message", Schema.string), ("field", Schema.string),
            ("findings", Schema.array(finding)),
            ("retryAfterSeconds", ["type": "number", "description": "rate-limited and interaction refusals: seconds to wait (also the Retry-After header)"]),
            ("skipped", ["type": "array", "items": Schema.anyObject, "description": "no-target and the like: each device or token left out and why"]),
            ("deviceIDs", ["type": "array", "items": Schema.string, "description": "start-budget-exceeded: the devices over their push-to-start budget"]),
            ("devices", ["type": ["integer", "array"], "items": Schema.anyObject, "description": "how many devices (a count), or older-build-cannot-decode's devices that cannot decode"]),
            ("builds", Schema.array(Schema.anyObject)), ("versions", Schema.array(Schema.anyObject)),
            ("attributesType", Schema.string), ("count", Schema.integer),
            ("channels", Schema.integer), ("limit", Schema.integer),
            ("endedAt", Schema.dateTime),
            ("apnsStatus", Schema.integer), ("apnsReason", Schema.string),
        ], required: ["code", "message"])
        return Schema.object([("error", error)], required: ["error"])
    }
}
