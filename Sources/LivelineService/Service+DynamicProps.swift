import Foundation
import LivelineCore

/// Voltra's Dynamic Live Activities (docs/from-voltra.md): a send to an activity whose type is a
/// generated `Voltra…LiveActivityAttributes` with a declared props schema carries only
/// `contentState: {"props": {…}}`, checked against the declaration before it is queued.
extension Service {
    /// Props the declaration does not have, lacks, or types otherwise are refused with 422
    /// `invalid-props` and every finding: the device would decode them and its bundled layout
    /// render nothing or the wrong thing (a content state without a `props` object it drops).
    func refuseBadProps(_ state: JSONObject, schema: ActivitySchema) throws {
        guard let props = schema.voltraDynamicProps else { return }
        let findings = VoltraDynamic.check(contentState: .object(state), props: props)
        guard let first = findings.first(where: { $0.severity == .error }) else { return }
        let field = first.path.hasPrefix("aps.content-state") ? "contentState" + first.path.dropFirst("aps.content-state".count) : "contentState"
        throw APIError(422, "invalid-props", "\(schema.name): \(first.path): \(first.message) [\(first.code)]", field: field, findings: findings)
    }
}
