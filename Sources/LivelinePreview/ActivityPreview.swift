import Foundation
import LivelineCore
import LivelineUI

/// Previews of a Live Activity as iOS would draw it, as HTML and CSS at real point sizes.
///
/// ```swift
/// let options = PreviewOptions(at: Date(), dark: true, timeZone: TimeZone(identifier: "Europe/Lisbon")!)
/// let document = try ActivityPreview.document(apnsBody: Array(body.utf8), options: options)
/// try document.html.write(toFile: "index.html", atomically: true, encoding: .utf8)
/// ```
/// A server-driven layout (`uiJsonData`) is drawn as the device decodes it, its decoding warnings
/// carried in the document; a typed activity (`FlightAttributes`) through its template.
///
/// Module: LivelinePreview owns the text and HTML previews of a layout, a payload or a typed
/// activity. It imports LivelineCore and LivelineUI only (Foundation, no C library); it must never
/// import the browser (taking PNGs is the caller's job), the simulator, the service or the
/// transport.
public enum ActivityPreview {
    /// From a whole APNs body (typed flight or server-driven UI) as JSON bytes.
    ///
    /// `aps.content-state.uiJsonData` is drawn as the device decodes it; otherwise the content state
    /// is drawn by the template of `aps.attributes-type` with `aps.attributes` (a push-to-start body
    /// carries both). An `aps.stale-date` at or before `options.at` draws the stale state; an
    /// `aps.event` of `end` draws the ended activity (its Lock Screen only).
    /// - Throws: `PreviewError` when the body is not JSON, has no `aps.content-state`, names a type
    ///   without a template, or its payload cannot be decoded.
    public static func document(apnsBody: [UInt8], options: PreviewOptions) throws -> PreviewDocument {
        try document(apnsBody: apnsBody, attributesType: nil, attributes: nil, options: options)
    }

    /// From an APNs body whose type and attributes may come from elsewhere: an update or end of a
    /// typed activity carries neither, so `attributesType` and `attributes` (from the push-to-start
    /// body, or the device's activity) fill in what the body lacks. `aps.alert` becomes the
    /// options' alert (for the alert banner).
    /// - Throws: `PreviewError` as `document(apnsBody:options:)`, or when the body names another
    ///   type than `attributesType`.
    public static func document(apnsBody: [UInt8], attributesType given: String?, attributes givenAttributes: JSONValue?,
                                options: PreviewOptions) throws -> PreviewDocument {
        let body: JSONValue
        do { body = try JSONValue.parse(apnsBody) } catch { throw PreviewError("the APNs body is not valid JSON: \(error.description)") }
        guard var aps = body["aps"]?.objectValue else { throw PreviewError("the APNs body has no \"aps\" object") }
        if let given {
            if let own = aps["attributes-type"]?.stringValue, own != given {
                throw PreviewError("the APNs body's aps.attributes-type is '\(own)', not '\(given)' as given")
            }
            if aps["attributes-type"] == nil { aps["attributes-type"] = .string(given) }
        }
        if let givenAttributes, aps["attributes"] == nil || aps["attributes"] == .null { aps["attributes"] = givenAttributes }
        var options = options
        if options.alert == nil, let alert = aps["alert"] { options.alert = Self.alert(alert) }
        return try document(aps: aps, options: options)
    }

    /// The alert's title and body: an object's `title` and `body` (localised keys shown as the key), or a string body.
    static func alert(_ value: JSONValue) -> PreviewAlert? {
        if let text = value.stringValue { return PreviewAlert(title: "", body: text) }
        guard let object = value.objectValue else { return nil }
        func text(_ key: String) -> String { object[key]?.stringValue ?? object[key + "-loc-key"]?.stringValue ?? object["\(key)LocalizationKey"]?.stringValue ?? "" }
        return PreviewAlert(title: text("title"), body: text("body"))
    }

    static func document(aps: JSONObject, options: PreviewOptions) throws -> PreviewDocument {
        guard let state = aps["content-state"], state.objectValue != nil else {
            throw PreviewError("the APNs body has no aps.content-state object (a Live Activity start, update or end carries one)")
        }
        var options = options
        // An end push ends the activity: it stays on the Lock Screen only (and is `.ended`, not stale).
        if aps["event"]?.stringValue == "end" {
            options.ended = true
        } else if let stale = aps["stale-date"]?.numberValue, stale.isFinite, Date(timeIntervalSince1970: stale) <= options.at {
            options.stale = true
        }
        if state["uiJsonData"] != nil {
            return try document(attributesType: aps["attributes-type"]?.stringValue ?? VoltraAttributes.attributesType,
                                attributes: aps["attributes"], contentState: state, options: options)
        }
        guard let typeValue = aps["attributes-type"] else {
            throw PreviewError("""
                the APNs body names no aps.attributes-type and its content state has no uiJsonData: an update of a typed \
                activity does not say its type; give its type and attributes (liveline preview --type T --attributes JSON, \
                or --start with the push-to-start body) (supported types: \(Templates.all.keys.sorted().joined(separator: ", ")))
                """)
        }
        guard let type = typeValue.stringValue else {
            throw PreviewError("aps.attributes-type is \(typeValue.jsonString.prefix(40)), not a string naming the activity's Swift type (e.g. \"FlightAttributes\")")
        }
        return try document(attributesType: type, attributes: aps["attributes"], contentState: state, options: options)
    }

    /// From an attributes type name, its attributes and content-state JSON (what a simulated device holds).
    ///
    /// A content state with `uiJsonData` is drawn as the device decodes it, whatever the type; otherwise
    /// the type needs a built-in template (`FlightAttributes`).
    /// - Throws: `PreviewError` naming the type and what is supported, or why the state does not decode.
    public static func document(attributesType: String, attributes: JSONValue?, contentState: JSONValue,
                                options: PreviewOptions) throws -> PreviewDocument {
        if let encoded = contentState["uiJsonData"] {
            guard let text = encoded.stringValue else {
                throw PreviewError("content-state.uiJsonData is \(encoded.jsonString.prefix(40)), not a string (base64 of brotli JSON)")
            }
            let decoded: DecodedUI
            do { decoded = try VoltraDecoder.lint(base64: text) } catch {
                throw PreviewError("content-state.uiJsonData cannot be decoded: \(error.message)")
            }
            return document(layout: decoded.layout, warnings: decoded.issues.map(\.description), options: options,
                            source: "\(attributesType)'s server-driven layout (uiJsonData) as the device decodes it")
        }
        guard let template = try Templates.template(for: attributesType, options: options) else {
            throw PreviewError("""
                no preview template for attributes type '\(attributesType)' and its content state has no uiJsonData; \
                supported: \(Templates.all.keys.sorted().joined(separator: ", ")) (built in), and any type whose \
                content state carries uiJsonData (server-driven UI, e.g. VoltraAttributes)
                """)
        }
        let (layout, warnings) = try Templates.layout(template, type: attributesType, attributes: attributes, state: contentState, options: options)
        return document(layout: layout, warnings: warnings, options: options, source: "\(attributesType) through its template (\(template.name))")
    }

    /// The CSS every fragment needs, the same as each document's `stylesheet` (for a page that
    /// embeds fragments and includes it once).
    public static var stylesheet: String { Stylesheet.css }

    /// From a JSON-form layout or uiJsonData string (what `liveline ui preview` takes), already parsed.
    ///
    /// A layout past `LayoutLimits` (only one built in code can be: the decoder and the JSON form
    /// refuse them) is drawn empty, with the limit it passes as a warning.
    /// `source` names what was drawn, on the page ("a JSON-form layout").
    public static func document(layout: UILayout, warnings: [String], options: PreviewOptions, source: String = "a layout") -> PreviewDocument {
        do { try LayoutLimits.check(layout) } catch {
            return PageRenderer(options: options, source: source).document(UILayout(), warnings: warnings + ["not drawn: \(error.message)"])
        }
        return PageRenderer(options: options, source: source).document(layout, warnings: warnings)
    }
}
