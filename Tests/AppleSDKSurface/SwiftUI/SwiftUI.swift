// SwiftUI as the iOS SDK declares it: only the subset this project's iOS files use, with the
// signatures, availability and isolation of Apple's documentation (the page, under
// https://developer.apple.com/documentation/swiftui/, is named above each declaration). Stub
// bodies: compiled against, never run. See scripts/check-ios-sources.sh.
import Foundation

public typealias CGFloat = Double

/// swiftui/view: `@MainActor @preconcurrency protocol View`
@MainActor @preconcurrency public protocol View {
    associatedtype Body: View
    @ViewBuilder var body: Body { get }
}

/// swiftui/never (Never: View, for the leaf views' Body)
extension Never: View {
    public var body: Never { fatalError() }
}

/// swiftui/viewbuilder
@resultBuilder public struct ViewBuilder {
    public static func buildBlock() -> EmptyView { fatalError() }
    public static func buildBlock<Content: View>(_ content: Content) -> Content { fatalError() }
    public static func buildBlock<each Content: View>(_ content: repeat each Content) -> TupleView<(repeat each Content)> { fatalError() }
    public static func buildExpression<Content: View>(_ content: Content) -> Content { fatalError() }
    public static func buildIf<Content: View>(_ content: Content?) -> Content? { fatalError() }
    public static func buildEither<TrueContent: View, FalseContent: View>(first: TrueContent) -> _ConditionalContent<TrueContent, FalseContent> { fatalError() }
    public static func buildEither<TrueContent: View, FalseContent: View>(second: FalseContent) -> _ConditionalContent<TrueContent, FalseContent> { fatalError() }
}

/// swiftui/emptyview
public struct EmptyView: View { public init() {}; public var body: Never { fatalError() } }
/// swiftui/tupleview
public struct TupleView<T>: View { public var body: Never { fatalError() } }
/// swiftui/_conditionalcontent
public struct _ConditionalContent<TrueContent: View, FalseContent: View>: View { public var body: Never { fatalError() } }
/// swiftui/optional (Optional: View where Wrapped: View)
extension Optional: View where Wrapped: View { public var body: Never { fatalError() } }
/// A modified view (swiftui/modifiedcontent), what the modifiers below return as `some View`.
public struct ModifiedContent<Content: View>: View { public init() {}; public var body: Never { fatalError() } }

/// swiftui/shapestyle
public protocol ShapeStyle: Sendable {}

/// swiftui/color: Hashable, Sendable, ShapeStyle, View
public struct Color: Hashable, Sendable, ShapeStyle, View {
    public static let black = Color(), white = Color(), blue = Color(), green = Color(), orange = Color(), red = Color(), secondary = Color()
    /// swiftui/color/opacity(_:)
    public func opacity(_ opacity: Double) -> Color { fatalError() }
    public var body: Never { fatalError() }
    init() {}
}

/// swiftui/font: Hashable, Sendable
public struct Font: Hashable, Sendable {
    public static let largeTitle = Font(), title = Font(), title2 = Font(), headline = Font(), subheadline = Font(), body = Font(), caption = Font(), caption2 = Font()
    init() {}
}

/// swiftui/horizontalalignment, swiftui/verticalalignment
public struct HorizontalAlignment: Equatable, Sendable { public static let leading = Self(), center = Self(), trailing = Self(); init() {} }
public struct VerticalAlignment: Equatable, Sendable { public static let top = Self(), center = Self(), bottom = Self(); init() {} }

/// swiftui/localizedstringkey: ExpressibleByStringInterpolation
public struct LocalizedStringKey: Equatable, ExpressibleByStringInterpolation, Sendable {
    public init(_ value: String) {}
    public init(stringLiteral value: String) {}
    public init(stringInterpolation: StringInterpolation) {}
    /// swiftui/localizedstringkey/stringinterpolation
    public struct StringInterpolation: StringInterpolationProtocol {
        public init(literalCapacity: Int, interpolationCount: Int) {}
        public mutating func appendLiteral(_ literal: String) {}
        /// appendinterpolation(_:) for strings
        public mutating func appendInterpolation(_ string: String) {}
        /// appendinterpolation(_:) for _FormatSpecifiable (Int, Double, ...)
        public mutating func appendInterpolation<T: _FormatSpecifiable>(_ value: T) {}
    }
}
/// swiftui/_formatspecifiable
public protocol _FormatSpecifiable: Equatable {}
extension Int: _FormatSpecifiable {}
extension Double: _FormatSpecifiable {}

/// swiftui/text
public struct Text: Equatable, Sendable, View {
    /// swiftui/text/init(_:tablename:bundle:comment:) (a literal or interpolation)
    public init(_ key: LocalizedStringKey) {}
    /// swiftui/text/init(_:)-9d1g4 (any string)
    @_disfavoredOverload public init<S: StringProtocol>(_ content: S) {}
    /// swiftui/text/font(_:)
    public func font(_ font: Font?) -> Text { fatalError() }
    /// swiftui/text/bold()
    public func bold() -> Text { fatalError() }
    public var body: Never { fatalError() }
}

/// swiftui/image
public struct Image: Equatable, Sendable, View {
    /// swiftui/image/init(systemname:)
    public init(systemName: String) {}
    public var body: Never { fatalError() }
}

/// swiftui/label
public struct Label<Title: View, Icon: View>: View {
    /// swiftui/label/init(_:systemimage:)-7v4ej (a literal)
    public init(_ titleKey: LocalizedStringKey, systemImage name: String) where Title == Text, Icon == Image {}
    /// swiftui/label/init(_:systemimage:)-5stxl (any string)
    @_disfavoredOverload public init<S: StringProtocol>(_ title: S, systemImage name: String) where Title == Text, Icon == Image {}
    public var body: Never { fatalError() }
}

/// swiftui/button
public struct Button<Label: View>: View {
    /// swiftui/button/init(action:label:)
    public init(action: @escaping @MainActor () -> Void, @ViewBuilder label: () -> Label) {}
    /// swiftui/button/init(_:action:)-1asy (a literal title)
    public init(_ titleKey: LocalizedStringKey, action: @escaping @MainActor () -> Void) where Label == Text {}
    public var body: Never { fatalError() }
}

/// swiftui/vstack
public struct VStack<Content: View>: View {
    /// swiftui/vstack/init(alignment:spacing:content:)
    public init(alignment: HorizontalAlignment = .center, spacing: CGFloat? = nil, @ViewBuilder content: () -> Content) {}
    public var body: Never { fatalError() }
}

/// swiftui/hstack
public struct HStack<Content: View>: View {
    /// swiftui/hstack/init(alignment:spacing:content:)
    public init(alignment: VerticalAlignment = .center, spacing: CGFloat? = nil, @ViewBuilder content: () -> Content) {}
    public var body: Never { fatalError() }
}

/// swiftui/spacer
public struct Spacer: View {
    /// swiftui/spacer/init(minlength:)
    public init(minLength: CGFloat? = nil) {}
    public var body: Never { fatalError() }
}

/// swiftui/state
@propertyWrapper public struct State<Value> {
    /// swiftui/state/init(wrappedvalue:)
    public init(wrappedValue value: Value) {}
    /// swiftui/state/init()
    public init<Wrapped>() where Value == Wrapped? {}
    /// swiftui/state/wrappedvalue
    public var wrappedValue: Value { get { fatalError() } nonmutating set {} }
}

extension View {
    /// swiftui/view/font(_:)
    nonisolated public func font(_ font: Font?) -> some View { ModifiedContent<Self>() }
    /// swiftui/view/bold(_:) (iOS 16)
    @available(iOS 16.0, *)
    nonisolated public func bold(_ isActive: Bool = true) -> some View { ModifiedContent<Self>() }
    /// swiftui/view/padding(_:_:)
    nonisolated public func padding(_ length: CGFloat? = nil) -> some View { ModifiedContent<Self>() }
    /// swiftui/view/foregroundstyle(_:) (iOS 15)
    @available(iOS 15.0, *)
    nonisolated public func foregroundStyle<S: ShapeStyle>(_ style: S) -> some View { ModifiedContent<Self>() }
    /// swiftui/view/foregroundcolor(_:): deprecated (iOS 13.0 - 27.0), use foregroundStyle(_:)
    @available(iOS, introduced: 13.0, deprecated: 27.0, message: "Use foregroundStyle(_:)")
    nonisolated public func foregroundColor(_ color: Color?) -> some View { ModifiedContent<Self>() }
}

/// swiftui/scene: `@MainActor @preconcurrency protocol Scene`
@MainActor @preconcurrency public protocol Scene {
    associatedtype Body: Scene
    @SceneBuilder var body: Body { get }
}
extension Never: Scene {}

/// swiftui/scenebuilder
@resultBuilder public struct SceneBuilder {
    public static func buildBlock<Content: Scene>(_ content: Content) -> Content { fatalError() }
}

/// swiftui/windowgroup
public struct WindowGroup<Content: View>: Scene {
    /// swiftui/windowgroup/init(content:)
    public init(@ViewBuilder content: () -> Content) {}
    public var body: Never { fatalError() }
}

/// swiftui/app: `@MainActor @preconcurrency protocol App`
@MainActor @preconcurrency public protocol App {
    associatedtype Body: Scene
    @SceneBuilder var body: Body { get }
    init()
}
extension App {
    /// swiftui/app/main()
    @MainActor public static func main() { fatalError() }
}

/// swiftui/shapestyle/red etc.: `extension ShapeStyle where Self == Color`
extension ShapeStyle where Self == Color {
    public static var black: Color { fatalError() }
    public static var white: Color { fatalError() }
    public static var blue: Color { fatalError() }
    public static var green: Color { fatalError() }
    public static var orange: Color { fatalError() }
    public static var red: Color { fatalError() }
    public static var secondary: Color { fatalError() }
}
