import LivelineCore

/// Something that carries style properties: every view, and `Style` itself.
///
/// Each modifier appends one property in call order (setting it again keeps its first position),
/// which is the order it has on the wire.
public protocol StyleModifiable {
    /// The properties, full names, in order.
    var styleProperties: JSONObject { get set }
}

extension StyleModifiable {
    /// Sets a style property by its full name (for keys without a typed modifier).
    public func styled(_ name: String, _ value: JSONValue) -> Self {
        var copy = self
        copy.styleProperties[name] = value
        return copy
    }

    /// Appends every property of `style` in its order.
    public func style(_ style: Style) -> Self {
        var copy = self
        for member in style.styleProperties { copy.styleProperties[member.key] = member.value }
        return copy
    }

    private func number(_ name: String, _ value: Double) -> Self { styled(name, .number(value)) }

    // MARK: Box

    /// `padding` on every edge.
    public func padding(_ all: Double) -> Self { number("padding", all) }
    /// `paddingHorizontal` / `paddingVertical`.
    public func padding(horizontal: Double? = nil, vertical: Double? = nil) -> Self {
        var s = self
        if let horizontal { s = s.number("paddingHorizontal", horizontal) }
        if let vertical { s = s.number("paddingVertical", vertical) }
        return s
    }
    /// `paddingTop/Left/Bottom/Right`.
    public func padding(_ insets: EdgeInsets) -> Self {
        number("paddingTop", insets.top).number("paddingLeft", insets.leading)
            .number("paddingBottom", insets.bottom).number("paddingRight", insets.trailing)
    }
    /// `margin` on every edge.
    public func margin(_ all: Double) -> Self { number("margin", all) }
    /// `marginHorizontal` / `marginVertical`.
    public func margin(horizontal: Double? = nil, vertical: Double? = nil) -> Self {
        var s = self
        if let horizontal { s = s.number("marginHorizontal", horizontal) }
        if let vertical { s = s.number("marginVertical", vertical) }
        return s
    }
    /// `marginTop/Left/Bottom/Right`.
    public func margin(_ insets: EdgeInsets) -> Self {
        number("marginTop", insets.top).number("marginLeft", insets.leading)
            .number("marginBottom", insets.bottom).number("marginRight", insets.trailing)
    }
    /// `marginTop` alone.
    public func marginTop(_ value: Double) -> Self { number("marginTop", value) }

    // MARK: Size

    /// `width` / `height`.
    public func frame(width: Length? = nil, height: Length? = nil) -> Self {
        var s = self
        if let width { s = s.styled("width", width.json) }
        if let height { s = s.styled("height", height.json) }
        return s
    }
    /// `minWidth` / `maxWidth` / `minHeight` / `maxHeight`.
    public func frame(minWidth: Length? = nil, maxWidth: Length? = nil, minHeight: Length? = nil, maxHeight: Length? = nil) -> Self {
        var s = self
        if let minWidth { s = s.styled("minWidth", minWidth.json) }
        if let maxWidth { s = s.styled("maxWidth", maxWidth.json) }
        if let minHeight { s = s.styled("minHeight", minHeight.json) }
        if let maxHeight { s = s.styled("maxHeight", maxHeight.json) }
        return s
    }
    /// `aspectRatio`.
    public func aspectRatio(_ ratio: Double) -> Self { number("aspectRatio", ratio) }

    // MARK: Flex

    /// `flex` (grow = flex, shrink 1, basis 0 when positive).
    public func flex(_ value: Double) -> Self { number("flex", value) }
    /// `flexGrow`.
    public func flexGrow(_ value: Double) -> Self { number("flexGrow", value) }
    /// `flexShrink`.
    public func flexShrink(_ value: Double) -> Self { number("flexShrink", value) }
    /// `flexBasis`.
    public func flexBasis(_ value: Length) -> Self { styled("flexBasis", value.json) }
    /// `flexDirection`.
    public func flexDirection(_ value: FlexDirection) -> Self { styled("flexDirection", .string(value.rawValue)) }
    /// `alignItems`.
    public func alignItems(_ value: FlexAlign) -> Self { styled("alignItems", .string(value.rawValue)) }
    /// `alignSelf`.
    public func alignSelf(_ value: FlexAlign) -> Self { styled("alignSelf", .string(value.rawValue)) }
    /// `justifyContent`.
    public func justifyContent(_ value: FlexJustify) -> Self { styled("justifyContent", .string(value.rawValue)) }
    /// `gap`.
    public func gap(_ value: Double) -> Self { number("gap", value) }
    /// `layoutPriority`.
    public func layoutPriority(_ value: Double) -> Self { number("layoutPriority", value) }

    // MARK: Position

    /// `position`, `left`, `top`.
    public func position(_ position: Position? = nil, left: Double? = nil, top: Double? = nil) -> Self {
        var s = self
        if let position { s = s.styled("position", .string(position.rawValue)) }
        if let left { s = s.number("left", left) }
        if let top { s = s.number("top", top) }
        return s
    }
    /// `zIndex`.
    public func zIndex(_ value: Double) -> Self { number("zIndex", value) }

    // MARK: Decoration

    /// `backgroundColor`.
    public func backgroundColor(_ color: Color) -> Self { styled("backgroundColor", .string(color.value)) }
    /// `backgroundColor` as a CSS gradient, e.g. `"linear-gradient(90deg, #0B1220, #1E293B)"`.
    public func backgroundGradient(_ css: String) -> Self { styled("backgroundColor", .string(css)) }
    /// `borderRadius`.
    public func cornerRadius(_ radius: Double) -> Self { number("borderRadius", radius) }
    /// `borderWidth` and `borderColor`.
    public func border(_ color: Color, width: Double = 1) -> Self {
        number("borderWidth", width).styled("borderColor", .string(color.value))
    }
    /// `shadowColor`, `shadowOffset`, `shadowOpacity`, `shadowRadius`.
    public func shadow(color: Color = .black, radius: Double, x: Double = 0, y: Double = 0, opacity: Double = 1) -> Self {
        styled("shadowColor", .string(color.value)).styled("shadowOffset", ["width": .number(x), "height": .number(y)])
            .number("shadowOpacity", opacity).number("shadowRadius", radius)
    }
    /// `overflow`.
    public func overflow(_ value: Overflow) -> Self { styled("overflow", .string(value.rawValue)) }
    /// `glassEffect` (iOS 26).
    public func glassEffect(_ value: GlassEffect) -> Self { styled("glassEffect", .string(value.rawValue)) }
    /// `opacity`.
    public func opacity(_ value: Double) -> Self { number("opacity", value) }
    /// `transform`.
    public func transform(_ transforms: [Transform]) -> Self { styled("transform", .array(transforms.map(\.json))) }

    // MARK: Text

    /// `color` (the text / foreground color).
    public func foregroundColor(_ color: Color) -> Self { styled("color", .string(color.value)) }
    /// `fontSize` (default 17).
    public func fontSize(_ size: Double) -> Self { number("fontSize", size) }
    /// `fontWeight`.
    public func fontWeight(_ weight: FontWeight) -> Self { styled("fontWeight", .string(weight.rawValue)) }
    /// `fontSize` and `fontWeight` together.
    public func font(size: Double, weight: FontWeight? = nil) -> Self {
        let s = fontSize(size)
        return weight.map { s.fontWeight($0) } ?? s
    }
    /// `fontFamily` (a font bundled with the app's widget extension).
    public func fontFamily(_ family: String) -> Self { styled("fontFamily", .string(family)) }
    /// `letterSpacing`.
    public func letterSpacing(_ value: Double) -> Self { number("letterSpacing", value) }
    /// `lineHeight`.
    public func lineHeight(_ value: Double) -> Self { number("lineHeight", value) }
    /// `textAlign`.
    public func textAlign(_ value: TextAlign) -> Self { styled("textAlign", .string(value.rawValue)) }
    /// `textDecorationLine`.
    public func textDecoration(_ value: TextDecoration) -> Self { styled("textDecorationLine", .string(value.rawValue)) }
    /// `fontVariant`.
    public func fontVariant(_ variants: [FontVariant]) -> Self { styled("fontVariant", .array(variants.map { .string($0.rawValue) })) }
    /// `numberOfLines` (as a style).
    public func lineLimit(_ lines: Int) -> Self { number("numberOfLines", Double(lines)) }
}

/// A reusable set of style properties: `let caption = Style().fontSize(12).foregroundColor("#94A3B8")`.
///
/// Apply with `.style(caption)`. Compact mode stores structurally equal styles once.
public struct Style: StyleModifiable, Sendable, Hashable {
    /// The properties, full names, in order.
    public var styleProperties: JSONObject
    /// An empty style.
    public init() { styleProperties = JSONObject() }
}
