import LivelineCore

/// A component of Voltra's payload v1 on iOS; the raw value is the JSX name, `typeID` the wire id.
public enum Component: String, CaseIterable, Sendable, Hashable {
    case text = "Text"
    case button = "Button"
    case label = "Label"
    case image = "Image"
    case symbol = "Symbol"
    case toggle = "Toggle"
    case linearProgressView = "LinearProgressView"
    case circularProgressView = "CircularProgressView"
    case gauge = "Gauge"
    case timer = "Timer"
    case linearGradient = "LinearGradient"
    case vStack = "VStack"
    case hStack = "HStack"
    case zStack = "ZStack"
    case groupBox = "GroupBox"
    case glassContainer = "GlassContainer"
    case spacer = "Spacer"
    case divider = "Divider"
    case mask = "Mask"
    case link = "Link"
    case view = "View"
    case chart = "Chart"

    /// The numeric `t` on the wire (the order of iOS components in Voltra's `components.json`).
    public var typeID: Int { Component.allCases.firstIndex(of: self)! }

    /// The component with wire id `typeID`, or nil for an id the device does not know.
    public init?(typeID: Int) {
        guard typeID >= 0, typeID < Component.allCases.count else { return nil }
        self = Component.allCases[typeID]
    }

    /// Whether the component takes child elements (Text takes a string instead).
    public var takesChildren: Bool {
        switch self {
        case .button, .linearGradient, .vStack, .hStack, .zStack, .groupBox, .glassContainer, .mask, .link, .view, .chart: true
        default: false
        }
    }

    /// The JSON type the device's parameter struct expects for each wire prop (short key).
    ///
    /// A prop of another JSON type makes the device fall back to defaults for *all* of the element's
    /// parameters. Props not listed are passed through unchecked.
    public var parameterTypes: [String: PropType] {
        switch self {
        case .text: ["nol": .number, "mta": .string]
        case .button: ["bs": .string]
        case .label: ["ttl": .string, "si": .string]
        case .image: ["src": .string, "rm": .string, "arm": .string, "flb": .component]
        case .symbol:
            ["n": .string, "typ": .string, "sc": .string, "wt": .string, "sz": .number, "tc": .string, "cls": .string, "rm": .string]
        case .toggle: ["dv": .boolean, "ttl": .string]
        case .linearProgressView:
            ["v": .number, "cd": .boolean, "max": .number, "end": .number, "start": .number, "trc": .string, "pc": .string,
             "cr": .number, "h": .number, "th": .component, "lbl": .component, "cvl": .component]
        case .circularProgressView:
            ["v": .number, "cd": .boolean, "max": .number, "end": .number, "start": .number, "trc": .string, "pc": .string,
             "lw": .number, "lbl": .component, "cvl": .component]
        case .gauge:
            ["v": .number, "min": .number, "max": .number, "end": .number, "start": .number, "tc": .string, "gs": .string,
             "cvl": .component, "minvl": .component, "maxl": .component]
        case .timer:
            ["end": .number, "start": .number, "dur": .number, "dir": .string, "ts": .string, "tt": .string, "shrs": .boolean]
        case .linearGradient: ["cls": .string, "sts": .string, "stp": .string, "ep": .string, "dth": .boolean]
        case .vStack, .hStack: ["al": .string, "ly": .string, "sp": .number]
        case .zStack: ["al": .string]
        case .groupBox: ["lbl": .component]
        case .glassContainer: ["sp": .number]
        case .spacer: ["minl": .number]
        case .divider, .view: [:]
        case .mask: ["me": .component]
        case .link: ["dest": .string]
        case .chart: ["mrk": .string, "xav": .string, "xgs": .string, "yav": .string, "ygs": .string, "lgv": .string, "fss": .string]
        }
    }

    /// Full names of the props whose value is a component (rendered to node JSON).
    public static let componentProps: Set<String> = [
        "label", "fallback", "currentValueLabel", "minimumValueLabel", "maximumValueLabel", "thumb", "maskElement",
    ]
}
