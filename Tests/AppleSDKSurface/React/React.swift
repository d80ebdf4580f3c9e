// React Native's iOS bridge as Swift sees it (React/RCTBridgeModule.h, React/RCTEventEmitter.h of
// react-native 0.74, imported through a bridging header): only what the native module in
// clients/react-native/ios uses. The header named above each declaration is the source, in the
// react-native repository under packages/react-native/React/. Objective-C blocks and classes are
// imported without Sendable, so none is declared. Stub bodies: compiled against, never run.
import Foundation

/// Base/RCTBridgeModule.h: `typedef void (^RCTPromiseResolveBlock)(id result);`
public typealias RCTPromiseResolveBlock = (Any?) -> Void
/// Base/RCTBridgeModule.h: `typedef void (^RCTPromiseRejectBlock)(NSString *code, NSString *message, NSError *error);`
public typealias RCTPromiseRejectBlock = (String?, String?, (any Error)?) -> Void

/// Modules/RCTEventEmitter.h: `@interface RCTEventEmitter : NSObject <RCTBridgeModule, RCTInvalidating>`
open class RCTEventEmitter: NSObject {
    public override init() { super.init() }
    /// `- (NSArray<NSString *> *)supportedEvents;` (must be overridden)
    open func supportedEvents() -> [String]! { fatalError() }
    /// `- (void)sendEventWithName:(NSString *)name body:(id)body;`
    open func sendEvent(withName name: String!, body: Any!) {}
    /// `- (void)startObserving;` called when the first JS listener is added
    open func startObserving() {}
    /// `- (void)stopObserving;` called when the last JS listener is removed
    open func stopObserving() {}
    /// RCTBridgeModule: `+ (BOOL)requiresMainQueueSetup;`
    open class func requiresMainQueueSetup() -> Bool { false }
    /// RCTBridgeModule: `@property (nonatomic, strong, readonly) dispatch_queue_t methodQueue;`
    open var methodQueue: DispatchQueue! { nil }
}
