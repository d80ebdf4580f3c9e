import Foundation
import LivelineCore

/// An answer that is not a success: an HTTP status, a stable code, the field it is about, and a
/// message a person can act on. Thrown inside a transaction, it rolls back everything.
public struct APIError: Error, CustomStringConvertible, Sendable {
    public var status: Int
    public var code: String
    public var message: String
    public var field: String?
    /// Lint findings and validation errors, for 422.
    public var findings: [LintFinding]
    /// Extra members of the error object.
    public var details: JSONObject

    public init(_ status: Int, _ code: String, _ message: String, field: String? = nil, findings: [LintFinding] = [], details: JSONObject = [:]) {
        self.status = status
        self.code = code
        self.message = message
        self.field = field
        self.findings = findings
        self.details = details
    }

    public var description: String { "\(status) \(code): \(message)" }

    /// `{"error": {"code", "message", "field"?, "findings"?}}`
    public var json: JSONValue {
        var error: JSONObject = ["code": .string(code), "message": .string(message)]
        if let field { error["field"] = .string(field) }
        if !findings.isEmpty { error["findings"] = .array(findings.map(Self.json)) }
        for member in details { error[member.key] = member.value }
        return ["error": .object(error)]
    }

    static func json(_ finding: LintFinding) -> JSONValue {
        ["severity": .string(finding.severity.rawValue), "code": .string(finding.code.rawValue), "path": .string(finding.path),
         "message": .string(finding.message), "text": .string(finding.description)]
    }

    static func invalid(_ field: String, _ message: String) -> APIError { APIError(400, "invalid-field", "\(field): \(message)", field: field) }
    static func notFound(_ what: String) -> APIError { APIError(404, "not-found", what) }
    static func conflict(_ message: String, field: String? = nil) -> APIError { APIError(409, "conflict", message, field: field) }
}
