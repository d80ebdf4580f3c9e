import LivelineCore

extension VoltraAttributes {
    /// The schema of `VoltraAttributes`, built in so lint and the simulator know Voltra apps.
    public static let schema = ActivitySchema(
        name: "VoltraAttributes",
        attributes: .object([.init("name", .string), .init("deepLinkUrl", .optional(.string))]),
        contentState: .object([.init("uiJsonData", .string)]))
}
