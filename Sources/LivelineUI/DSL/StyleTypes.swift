import LivelineCore

/// A length: points, a percentage (`"100%"` fills), or `auto` (wrap content).
public enum Length: Sendable, Hashable, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral {
    case points(Double)
    case percent(Double)
    case auto

    /// Fill the available space (`"100%"`).
    public static let fill = Length.percent(100)

    /// Points.
    public init(integerLiteral value: Int) { self = .points(Double(value)) }
    /// Points.
    public init(floatLiteral value: Double) { self = .points(value) }

    var json: JSONValue {
        switch self {
        case .points(let p): .number(p)
        case .percent(let p): .string(JSONValue.javaScriptNumber(p) + "%")
        case .auto: "auto"
        }
    }
}

/// Insets on each edge.
public struct EdgeInsets: Sendable, Hashable {
    /// The inset of each edge, in points.
    public var top: Double, leading: Double, bottom: Double, trailing: Double
    /// Creates insets.
    public init(top: Double = 0, leading: Double = 0, bottom: Double = 0, trailing: Double = 0) {
        self.top = top
        self.leading = leading
        self.bottom = bottom
        self.trailing = trailing
    }
}

/// `fontWeight`: `normal`, `bold` or a number from 100 to 900.
public enum FontWeight: String, Sendable, Hashable {
    case normal, bold
    case ultraLight = "100", thin = "200", light = "300", regular = "400", medium = "500"
    case semibold = "600", heavyBold = "700", heavy = "800", black = "900"
}

/// `textAlign`.
public enum TextAlign: String, Sendable, Hashable { case left, center, right, justify, auto }

/// `textDecorationLine`.
public enum TextDecoration: String, Sendable, Hashable {
    case none, underline, lineThrough = "line-through", underlineLineThrough = "underline line-through"
}

/// An entry of `fontVariant`.
public enum FontVariant: String, Sendable, Hashable {
    case smallCaps = "small-caps", tabularNums = "tabular-nums", oldstyleNums = "oldstyle-nums"
    case liningNums = "lining-nums", proportionalNums = "proportional-nums"
}

/// `alignItems` / `alignSelf`.
public enum FlexAlign: String, Sendable, Hashable {
    case auto, flexStart = "flex-start", flexEnd = "flex-end", center, stretch, baseline
}

/// `justifyContent`.
public enum FlexJustify: String, Sendable, Hashable {
    case flexStart = "flex-start", flexEnd = "flex-end", center, spaceBetween = "space-between"
    case spaceAround = "space-around", spaceEvenly = "space-evenly"
}

/// `flexDirection`.
public enum FlexDirection: String, Sendable, Hashable { case row, column, rowReverse = "row-reverse", columnReverse = "column-reverse" }

/// `position`.
public enum Position: String, Sendable, Hashable { case absolute, relative, `static` }

/// `overflow`.
public enum Overflow: String, Sendable, Hashable { case visible, hidden }

/// `glassEffect` (iOS 26).
public enum GlassEffect: String, Sendable, Hashable { case clear, identity, regular, none }

/// One entry of `transform`.
public enum Transform: Sendable, Hashable {
    case rotate(degrees: Double)
    case rotateRadians(Double)
    case scale(Double)
    case scaleX(Double)
    case scaleY(Double)

    var json: JSONValue {
        switch self {
        case .rotate(let d): ["rotate": .string(JSONValue.javaScriptNumber(d) + "deg")]
        case .rotateRadians(let r): ["rotate": .string(JSONValue.javaScriptNumber(r) + "rad")]
        case .scale(let s): ["scale": .number(s)]
        case .scaleX(let s): ["scaleX": .number(s)]
        case .scaleY(let s): ["scaleY": .number(s)]
        }
    }
}
