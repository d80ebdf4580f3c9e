/// `multilineTextAlignment` of Text.
public enum MultilineTextAlignment: String, Sendable, Hashable { case left, center, right, auto }
/// `buttonStyle` of Button.
public enum ButtonStyle: String, Sendable, Hashable { case automatic, bordered, borderedProminent, plain, borderless }
/// `resizeMode` of Image and Symbol.
public enum ResizeMode: String, Sendable, Hashable { case cover, contain, stretch, `repeat`, center }
/// `accentedRenderingMode` of Image.
public enum AccentedRenderingMode: String, Sendable, Hashable { case fullColor, accented, accentedDesaturated, desaturated }
/// `type` (rendering mode) of Symbol.
public enum SymbolRenderingMode: String, Sendable, Hashable { case monochrome, hierarchical, palette, multicolor }
/// `scale` of Symbol.
public enum SymbolScale: String, Sendable, Hashable { case `default`, unspecified, small, medium, large }
/// `weight` of Symbol.
public enum SymbolWeight: String, Sendable, Hashable {
    case unspecified, ultraLight, thin, light, regular, medium, semibold, bold, heavy, black
}
/// `gaugeStyle` of Gauge.
public enum GaugeStyle: String, Sendable, Hashable {
    case automatic, accessoryLinear, accessoryLinearCapacity, accessoryCircular, accessoryCircularCapacity, linearCapacity
}
/// `direction` of Timer.
public enum TimerDirection: String, Sendable, Hashable { case up, down }
/// `textStyle` of Timer.
public enum TimerTextStyle: String, Sendable, Hashable { case timer, relative }
/// `alignment` of VStack.
public enum HorizontalAlignment: String, Sendable, Hashable { case leading, center, trailing }
/// `alignment` of HStack.
public enum VerticalAlignment: String, Sendable, Hashable { case top, center, bottom }
/// `alignment` of ZStack.
public enum Alignment: String, Sendable, Hashable {
    case topLeading, top, topTrailing, leading, center, trailing, bottomLeading, bottom, bottomTrailing
}
/// `layout` of VStack and HStack: native stack or Voltra's flexbox.
public enum StackLayout: String, Sendable, Hashable { case stack, flex }
/// Axis and legend visibility of Chart.
public enum ChartVisibility: String, Sendable, Hashable { case automatic, visible, hidden }
/// A point of a LinearGradient: one of the nine unit points or any (x, y).
public enum UnitPoint: Sendable, Hashable {
    case topLeading, top, topTrailing, leading, center, trailing, bottomLeading, bottom, bottomTrailing
    case point(x: Double, y: Double)

    var wire: String {
        switch self {
        case .point(let x, let y): ComponentTransforms.unitPoint(x: x, y: y)
        default: String(describing: self)
        }
    }
}
