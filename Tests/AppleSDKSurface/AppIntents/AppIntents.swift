// AppIntents as the iOS SDK declares it: only what this project's intents use, with the signatures,
// availability and conformances of Apple's documentation (the page, under
// https://developer.apple.com/documentation/appintents/, is named above each declaration). Stub
// bodies: compiled against, never run. See scripts/check-ios-sources.sh.
import Foundation
import SwiftUI

/// foundation/localizedstringresource (Foundation on iOS 16; declared here, Linux's Foundation has none):
/// Sendable, ExpressibleByStringInterpolation
public struct LocalizedStringResource: Sendable, ExpressibleByStringLiteral, Hashable {
    public init(stringLiteral value: String) {}
}

/// appintents/persistentlyidentifiable
public protocol PersistentlyIdentifiable {}

/// appintents/intentresult: `protocol IntentResult : Sendable`
@available(iOS 16.0, *)
public protocol IntentResult: Sendable {}

/// appintents/intentresultcontainer
@available(iOS 16.0, *)
public struct IntentResultContainer<Value, OpensIntent, Content, Dialog>: IntentResult {}

extension IntentResult {
    /// appintents/intentresult/result()
    @available(iOS 16.0, *)
    public static func result() -> Self where Self == IntentResultContainer<Never, Never, Never, Never> { fatalError() }
}

/// appintents/appintent: `protocol AppIntent : PersistentlyIdentifiable, Sendable`
@available(iOS 16.0, *)
public protocol AppIntent: PersistentlyIdentifiable, Sendable {
    /// appintents/appintent/title
    static var title: LocalizedStringResource { get }
    /// appintents/appintent/isdiscoverable
    static var isDiscoverable: Bool { get }
    associatedtype PerformResult: IntentResult
    init()
    /// appintents/appintent/perform()
    func perform() async throws -> PerformResult
}

extension AppIntent {
    public static var isDiscoverable: Bool { true }
    /// appintents/appintent/openappwhenrun: iOS 16.0 - 26.0, "use supportedModes instead"
    @available(iOS, introduced: 16.0, deprecated: 26.0, message: "Use supportedModes")
    public static var openAppWhenRun: Bool { false }
    /// appintents/appintent/parameter: `typealias Parameter = IntentParameter`
    public typealias Parameter = IntentParameter
}

/// appintents/systemintent
@available(iOS 16.0, *)
public protocol SystemIntent: AppIntent {}

/// appintents/liveactivityintent (iOS 17.0)
@available(iOS 17.0, *)
public protocol LiveActivityIntent: SystemIntent {}

/// appintents/_intentvalue
public protocol _IntentValue {}
extension String: _IntentValue {}
extension Int: _IntentValue {}
extension Bool: _IntentValue {}

/// appintents/anyintentvalue: `protocol AnyIntentValue : Sendable`
public protocol AnyIntentValue: Sendable {}

/// appintents/intentparameter: `@propertyWrapper final class IntentParameter<Value> where Value : _IntentValue, Value : Sendable`
/// (conforms to AnyIntentValue, hence Sendable)
@available(iOS 16.0, *)
@propertyWrapper
public final class IntentParameter<Value: _IntentValue & Sendable>: AnyIntentValue, @unchecked Sendable {
    /// appintents/intentparameter/init(title:description:...) for strings
    public init(title: LocalizedStringResource) {}
    /// appintents/intentparameter/wrappedvalue
    public final var wrappedValue: Value { get { fatalError() } set {} }
}

extension Button {
    /// swiftui/button/init(intent:label:) (iOS 17.0)
    @available(iOS 17.0, *)
    public init<I: AppIntent>(intent: I, @ViewBuilder label: () -> Label) { fatalError() }
}
