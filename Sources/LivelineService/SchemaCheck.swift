import LivelineCore

/// Checks a JSON value against the published schemas (`/openapi.json`): the request checks in
/// ServiceContractTests and, with `ServiceConfiguration.checkAnswers`, every answer the service gives.
enum SchemaCheck {
    /// The subset of JSON Schema `/openapi.json` uses: type (one or a list), properties, required,
    /// items, enum, anyOf, additionalProperties (false or a schema), format date-time. Returns what does not conform.
    static func violations(_ value: JSONValue, _ schema: JSONValue, at path: String = "$") -> [String] {
        var problems: [String] = []
        if let choices = schema["anyOf"]?.arrayValue {
            let each = choices.map { violations(value, $0, at: path) }
            if !each.contains(where: \.isEmpty) {
                return ["\(path): matches none of its \(choices.count) shapes: " + each.map { $0.prefix(3).joined(separator: ", ") }.joined(separator: " | ")]
            }
        }
        if let allowed = schema["enum"]?.arrayValue, !allowed.contains(value) { problems.append("\(path): \(value) is not one of \(allowed)") }
        let types = schema["type"].map { $0.arrayValue?.compactMap(\.stringValue) ?? [$0.stringValue ?? ""] } ?? []
        func isType(_ t: String) -> Bool {
            switch (t, value) {
            case ("object", .object), ("array", .array), ("string", .string), ("boolean", .bool), ("null", .null), ("number", .number): return true
            case ("integer", .number(let n)): return n == n.rounded()
            default: return false
            }
        }
        if !types.isEmpty, !types.contains(where: isType) { return problems + ["\(path): expected \(types.joined(separator: " or ")), got \(value.typeName)"] }
        if schema["format"]?.stringValue == "date-time", case .string(let text) = value, ISODate.parse(text) == nil {
            problems.append("\(path): \"\(text.prefix(40))\" is not an ISO 8601 date-time")
        }
        if case .object(let object) = value {
            let properties = schema["properties"]?.objectValue ?? JSONObject()
            for name in schema["required"]?.arrayValue?.compactMap(\.stringValue) ?? [] where object[name] == nil {
                problems.append("\(path): required member \(name) is missing")
            }
            for member in object {
                if let p = properties[member.key] {
                    problems += violations(member.value, p, at: "\(path).\(member.key)")
                } else if let extra = schema["additionalProperties"] {
                    if extra == .bool(false) { problems.append("\(path): member \(member.key) is not declared") } else if extra.objectValue != nil {
                        problems += violations(member.value, extra, at: "\(path).\(member.key)")
                    }
                }
            }
        }
        if case .array(let items) = value, let itemSchema = schema["items"] {
            for (i, item) in items.enumerated() { problems += violations(item, itemSchema, at: "\(path)[\(i)]") }
        }
        return problems
    }
}

extension Service {
    /// The declarations, built once for `checkAnswers`.
    private static let checkedAnswers = answerSchemas
    private static let checkedErrors = errorSchema

    /// Throws 500 `answer-off-contract` when `json`, the success answer of `route`, differs from
    /// what `/openapi.json` publishes for it (a route without a declaration is a difference too).
    func checkAnswer(_ json: JSONValue, of route: Route) throws(APIError) {
        guard let schema = Self.checkedAnswers[Self.routeKey(route)] else {
            throw offContract(["no answer schema is declared for \(Self.routeKey(route)) (AnswerSchemas.swift)"], Self.routeKey(route))
        }
        let problems = SchemaCheck.violations(json, schema)
        if !problems.isEmpty { throw offContract(problems, Self.routeKey(route)) }
    }

    /// `checkAnswer` for an error answer, against the published error schema: the answer to send.
    func checkedError(_ error: APIError, routeName: String) -> APIError {
        let problems = SchemaCheck.violations(error.json, Self.checkedErrors)
        return problems.isEmpty ? error : offContract(problems, routeName + " (error \(error.code))")
    }

    private func offContract(_ problems: [String], _ what: String) -> APIError {
        log("answer off contract: \(what): \(problems.prefix(5).joined(separator: "; "))")
        return APIError(500, "answer-off-contract", "the answer of \(what) differs from /openapi.json (its effect, if any, happened): \(problems.prefix(5).joined(separator: "; "))")
    }
}
