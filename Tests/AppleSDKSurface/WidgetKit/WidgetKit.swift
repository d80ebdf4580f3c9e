// WidgetKit's Live Activity part as the iOS SDK declares it: only what this project's widget uses,
// with the signatures, availability and isolation of Apple's documentation (the page, under
// https://developer.apple.com/documentation/widgetkit/, is named above each declaration). Stub
// bodies: compiled against, never run. See scripts/check-ios-sources.sh.
import ActivityKit
import Foundation
import SwiftUI

/// widgetkit/widget: `@MainActor @preconcurrency protocol Widget`
@MainActor @preconcurrency public protocol Widget {
    associatedtype Body: WidgetConfiguration
    @WidgetConfigurationBuilder var body: Body { get }
    init()
}
extension Widget {
    /// widgetkit/widget/main()
    @MainActor public static func main() { fatalError() }
}

/// widgetkit/widgetconfiguration: `@MainActor @preconcurrency protocol WidgetConfiguration`
@MainActor @preconcurrency public protocol WidgetConfiguration {
    associatedtype Body: WidgetConfiguration
    var body: Body { get }
}
extension Never: WidgetConfiguration {}

/// widgetkit/widgetconfigurationbuilder
@resultBuilder public struct WidgetConfigurationBuilder {
    public static func buildBlock<Content: WidgetConfiguration>(_ content: Content) -> Content { fatalError() }
}

/// widgetkit/widgetbundle: `@MainActor @preconcurrency protocol WidgetBundle`
@MainActor @preconcurrency public protocol WidgetBundle {
    associatedtype Body: Widget
    @WidgetBundleBuilder var body: Body { get }
    init()
}
extension WidgetBundle {
    /// widgetkit/widgetbundle/main()
    @MainActor public static func main() { fatalError() }
}

/// widgetkit/widgetbundlebuilder
@resultBuilder public struct WidgetBundleBuilder {
    public static func buildBlock<Content: Widget>(_ content: Content) -> Content { fatalError() }
}

/// widgetkit/activityviewcontext: `@dynamicMemberLookup struct ActivityViewContext<Attributes> where Attributes : ActivityAttributes`
@available(iOS 16.1, *)
@dynamicMemberLookup
public struct ActivityViewContext<Attributes: ActivityAttributes> {
    /// widgetkit/activityviewcontext/attributes
    public let attributes: Attributes
    /// widgetkit/activityviewcontext/state
    public let state: Attributes.ContentState
    /// widgetkit/activityviewcontext/activityid
    public let activityID: String
    /// widgetkit/activityviewcontext/isstale
    public let isStale: Bool
    /// widgetkit/activityviewcontext/subscript(dynamicmember:)
    public subscript<T>(dynamicMember keyPath: KeyPath<Attributes, T>) -> T { fatalError() }
}

/// widgetkit/activityconfiguration
@available(iOS 16.1, *)
public struct ActivityConfiguration<Attributes: ActivityAttributes>: WidgetConfiguration {
    /// widgetkit/activityconfiguration/init(for:content:dynamicisland:)
    public init<Content: View>(for attributesType: Attributes.Type,
                               @ViewBuilder content: @escaping (ActivityViewContext<Attributes>) -> Content,
                               dynamicIsland: @escaping (ActivityViewContext<Attributes>) -> DynamicIsland) {}
    public var body: Never { fatalError() }
}

/// widgetkit/dynamicisland
@available(iOS 16.1, *)
public struct DynamicIsland {
    /// widgetkit/dynamicisland/init(expanded:compactleading:compacttrailing:minimal:)
    public init<Expanded: View, CompactLeading: View, CompactTrailing: View, Minimal: View>(
        @DynamicIslandExpandedContentBuilder expanded: @escaping () -> DynamicIslandExpandedContent<Expanded>,
        @ViewBuilder compactLeading: @escaping () -> CompactLeading,
        @ViewBuilder compactTrailing: @escaping () -> CompactTrailing,
        @ViewBuilder minimal: @escaping () -> Minimal) {}
    /// widgetkit/dynamicisland/keylinetint(_:)
    public func keylineTint(_ color: Color?) -> DynamicIsland { fatalError() }
}

/// widgetkit/dynamicislandexpandedcontent
@available(iOS 16.1, *)
public struct DynamicIslandExpandedContent<Content: View> {}

/// widgetkit/dynamicislandexpandedcontentbuilder
@available(iOS 16.1, *)
@resultBuilder public struct DynamicIslandExpandedContentBuilder {
    public static func buildBlock<each Content: View>(_ content: repeat DynamicIslandExpandedRegion<each Content>) -> DynamicIslandExpandedContent<TupleView<(repeat DynamicIslandExpandedRegion<each Content>)>> { fatalError() }
}

/// widgetkit/dynamicislandexpandedregion
@available(iOS 16.1, *)
public struct DynamicIslandExpandedRegion<Content: View>: View {
    /// widgetkit/dynamicislandexpandedregion/init(_:priority:content:)
    public init(_ position: DynamicIslandExpandedRegionPosition, priority: Double = 0, @ViewBuilder content: () -> Content) {}
    public var body: Never { fatalError() }
}

/// widgetkit/dynamicislandexpandedregionposition
@available(iOS 16.1, *)
public struct DynamicIslandExpandedRegionPosition: Hashable, Sendable {
    public static let leading = Self(), trailing = Self(), center = Self(), bottom = Self()
    init() {}
}

extension View {
    /// widgetkit/view/activitybackgroundtint(_:)
    @available(iOS 16.1, *)
    nonisolated public func activityBackgroundTint(_ color: Color?) -> some View { ModifiedContent<Self>() }
    /// widgetkit/view/activitysystemactionforegroundcolor(_:)
    @available(iOS 16.1, *)
    nonisolated public func activitySystemActionForegroundColor(_ color: Color?) -> some View { ModifiedContent<Self>() }
}
