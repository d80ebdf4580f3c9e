// ActivityKit as the iOS 26 SDK declares it: only the part this project calls, with the signatures,
// availability and conformances of Apple's documentation (the page is named above each declaration,
// under https://developer.apple.com/documentation/activitykit/). A conformance the page does not
// list is not declared (the strictest reading): `Activity`, its sequences and `ActivityState` are
// not `Sendable`. Bodies are stubs: this module is only compiled against, never run.
// scripts/check-ios-sources.sh compiles it for a deployment target, turning `@available(iOS X, *)`
// newer than the target into "unavailable" and iOS deprecations into deprecations.
import Foundation

/// activitykit/activityattributes: `protocol ActivityAttributes : Decodable, Encodable`
@available(iOS 16.1, *)
public protocol ActivityAttributes: Decodable, Encodable {
    /// activitykit/activityattributes/contentstate: `associatedtype ContentState : Decodable, Encodable, Hashable`
    associatedtype ContentState: Decodable, Encodable, Hashable
}

/// activitykit/activitystate: Encodable, Decodable, Equatable, Hashable (no Sendable listed)
@available(iOS 16.1, *)
public enum ActivityState: Codable, Hashable {
    /// activitykit/activitystate/active
    case active
    /// activitykit/activitystate/ended
    case ended
    /// activitykit/activitystate/dismissed
    case dismissed
    /// activitykit/activitystate/stale (iOS 16.2)
    @available(iOS 16.2, *) case stale
    /// activitykit/activitystate/pending (iOS 26.0). An enum case stays declared whatever the
    /// deployment target (the compiler counts it in a switch's exhaustiveness as Xcode 26 does).
    @available(iOS 26.0, *) case pending
}

/// activitykit/activitycontent: `struct ActivityContent<State> where State : Decodable, Encodable, Hashable`
@available(iOS 16.2, *)
public struct ActivityContent<State: Decodable & Encodable & Hashable> {
    /// activitykit/activitycontent/state
    public let state: State
    /// activitykit/activitycontent/staledate
    public let staleDate: Date?
    /// activitykit/activitycontent/relevancescore
    public let relevanceScore: Double
    /// activitykit/activitycontent/init(state:staledate:relevancescore:)
    public init(state: State, staleDate: Date?, relevanceScore: Double = 0.0) { fatalError() }
}

/// activitykit/pushtype
@available(iOS 16.1, *)
public struct PushType: Equatable {
    /// activitykit/pushtype/token
    public static var token: PushType { fatalError() }
    /// activitykit/pushtype/channel(_:)
    @available(iOS 18.0, *)
    public static func channel(_ name: String) -> PushType { fatalError() }
}

/// activitykit/activityuidismissalpolicy
@available(iOS 16.1, *)
public struct ActivityUIDismissalPolicy {
    /// activitykit/activityuidismissalpolicy/default
    public static var `default`: ActivityUIDismissalPolicy { fatalError() }
    /// activitykit/activityuidismissalpolicy/immediate
    public static var immediate: ActivityUIDismissalPolicy { fatalError() }
    /// activitykit/activityuidismissalpolicy/after(_:)
    public static func after(_ date: Date) -> ActivityUIDismissalPolicy { fatalError() }
}

/// activitykit/activityauthorizationerror (thrown by `request`)
@available(iOS 16.1, *)
public enum ActivityAuthorizationError: Error {
    case attributesTooLarge, denied, globalMaximumExceeded, targetMaximumExceeded, unsupported, visibility
}

/// activitykit/activity: `final class Activity<Attributes> where Attributes : ActivityAttributes`
/// (Identifiable; no Sendable listed)
@available(iOS 16.1, *)
public final class Activity<Attributes: ActivityAttributes>: Identifiable {
    public typealias ContentState = Attributes.ContentState

    /// activitykit/activity/id
    public final let id: String
    /// activitykit/activity/attributes
    public final let attributes: Attributes
    /// activitykit/activity/content
    @available(iOS 16.2, *)
    public var content: ActivityContent<ContentState> { fatalError() }
    /// activitykit/activity/contentstate (deprecated in 16.2: use `content`)
    @available(iOS, introduced: 16.1, deprecated: 16.2, message: "Use content.state")
    public var contentState: ContentState { fatalError() }
    /// activitykit/activity/activitystate
    public var activityState: ActivityState { fatalError() }
    /// activitykit/activity/pushtoken
    public var pushToken: Data? { fatalError() }
    /// activitykit/activity/pushtokenupdates-swift.property
    public var pushTokenUpdates: PushTokenUpdates { fatalError() }
    /// activitykit/activity/activitystateupdates-swift.property
    public var activityStateUpdates: ActivityStateUpdates { fatalError() }
    /// activitykit/activity/contentupdates-swift.property
    @available(iOS 16.2, *)
    public var contentUpdates: ContentUpdates { fatalError() }

    /// activitykit/activity/activities
    public static var activities: [Activity<Attributes>] { fatalError() }
    /// activitykit/activity/activityupdates-swift.type.property
    public static var activityUpdates: ActivityUpdates { fatalError() }
    /// activitykit/activity/pushtostarttoken
    @available(iOS 17.2, *)
    public static var pushToStartToken: Data? { fatalError() }
    /// activitykit/activity/pushtostarttokenupdates-swift.type.property
    @available(iOS 17.2, *)
    public static var pushToStartTokenUpdates: PushToStartTokenUpdates { fatalError() }

    /// activitykit/activity/request(attributes:content:pushtype:)
    @available(iOS 16.2, *)
    public static func request(attributes: Attributes, content: ActivityContent<ContentState>, pushType: PushType? = nil) throws -> Activity<Attributes> { fatalError() }
    /// activitykit/activity/request(attributes:contentstate:pushtype:) (deprecated in 16.2)
    @available(iOS, introduced: 16.1, deprecated: 16.2, message: "Use request(attributes:content:pushType:)")
    public static func request(attributes: Attributes, contentState: ContentState, pushType: PushType? = nil) throws -> Activity<Attributes> { fatalError() }
    /// activitykit/activity/update(_:)
    @available(iOS 16.2, *)
    public func update(_ content: ActivityContent<ContentState>) async { fatalError() }
    /// activitykit/activity/update(using:) (deprecated in 16.2)
    @available(iOS, introduced: 16.1, deprecated: 16.2, message: "Use update(_:)")
    public func update(using contentState: ContentState) async { fatalError() }
    /// activitykit/activity/end(_:dismissalpolicy:)
    @available(iOS 16.2, *)
    public func end(_ content: ActivityContent<ContentState>?, dismissalPolicy: ActivityUIDismissalPolicy = .default) async { fatalError() }
    /// activitykit/activity/end(dismissalpolicy:) (deprecated in 16.2)
    @available(iOS, introduced: 16.1, deprecated: 16.2, message: "Use end(_:dismissalPolicy:)")
    public func end(dismissalPolicy: ActivityUIDismissalPolicy = .default) async { fatalError() }

    init() { fatalError() }

    /// activitykit/activity/pushtokenupdates-swift.struct (AsyncSequence; Iterator: AsyncIteratorProtocol)
    public struct PushTokenUpdates: AsyncSequence {
        public typealias Element = Data
        public struct Iterator: AsyncIteratorProtocol {
            public mutating func next() async -> Data? { fatalError() }
        }
        public func makeAsyncIterator() -> Iterator { fatalError() }
    }

    /// activitykit/activity/activitystateupdates-swift.struct (Iterator: Sendable, AsyncIteratorProtocol)
    public struct ActivityStateUpdates: AsyncSequence {
        public typealias Element = ActivityState
        public struct Iterator: AsyncIteratorProtocol, Sendable {
            public mutating func next() async -> ActivityState? { fatalError() }
        }
        public func makeAsyncIterator() -> Iterator { fatalError() }
    }

    /// activitykit/activity/contentupdates-swift.struct
    @available(iOS 16.2, *)
    public struct ContentUpdates: AsyncSequence {
        public typealias Element = ActivityContent<Activity<Attributes>.ContentState>
        public struct Iterator: AsyncIteratorProtocol {
            public mutating func next() async -> Element? { fatalError() }
        }
        public func makeAsyncIterator() -> Iterator { fatalError() }
    }

    /// activitykit/activity/activityupdates-swift.struct (Element = Activity<Attributes>)
    public struct ActivityUpdates: AsyncSequence {
        public typealias Element = Activity<Attributes>
        public struct Iterator: AsyncIteratorProtocol {
            public mutating func next() async -> Activity<Attributes>? { fatalError() }
        }
        public func makeAsyncIterator() -> Iterator { fatalError() }
    }

    /// activitykit/activity/pushtostarttokenupdates-swift.struct
    @available(iOS 17.2, *)
    public struct PushToStartTokenUpdates: AsyncSequence {
        public typealias Element = Data
        public struct Iterator: AsyncIteratorProtocol {
            public mutating func next() async -> Data? { fatalError() }
        }
        public func makeAsyncIterator() -> Iterator { fatalError() }
    }
}

/// activitykit/activityauthorizationinfo: `final class ActivityAuthorizationInfo` (no Sendable listed)
@available(iOS 16.1, *)
public final class ActivityAuthorizationInfo {
    /// activitykit/activityauthorizationinfo/init()
    public init() {}
    /// activitykit/activityauthorizationinfo/areactivitiesenabled
    public final var areActivitiesEnabled: Bool { fatalError() }
    /// activitykit/activityauthorizationinfo/activityenablementupdates-swift.property
    public final let activityEnablementUpdates = ActivityEnablementUpdates()
    /// activitykit/activityauthorizationinfo/frequentpushesenabled
    @available(iOS 16.2, *)
    public final var frequentPushesEnabled: Bool { fatalError() }
    /// activitykit/activityauthorizationinfo/frequentpushenablementupdates-swift.property
    @available(iOS 16.2, *)
    public final var frequentPushEnablementUpdates: FrequentPushEnablementUpdates { fatalError() }

    /// activitykit/activityauthorizationinfo/activityenablementupdates-swift.struct
    public struct ActivityEnablementUpdates: AsyncSequence {
        public typealias Element = Bool
        public struct Iterator: AsyncIteratorProtocol {
            public mutating func next() async -> Bool? { fatalError() }
        }
        public func makeAsyncIterator() -> Iterator { fatalError() }
    }

    /// activitykit/activityauthorizationinfo/frequentpushenablementupdates-swift.struct
    @available(iOS 16.2, *)
    public struct FrequentPushEnablementUpdates: AsyncSequence {
        public typealias Element = Bool
        public struct Iterator: AsyncIteratorProtocol {
            public mutating func next() async -> Bool? { fatalError() }
        }
        public func makeAsyncIterator() -> Iterator { fatalError() }
    }
}

// Foundation on Darwin has what Linux's Foundation lacks; what the app calls of it is declared here
// (every iOS file that calls it imports ActivityKit).

extension FileManager {
    /// foundation/filemanager/containerurl(forsecurityapplicationgroupidentifier:)
    public func containerURL(forSecurityApplicationGroupIdentifier groupIdentifier: String) -> URL? { fatalError() }
}
