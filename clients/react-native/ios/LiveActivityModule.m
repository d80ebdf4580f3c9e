// The Objective-C side of LiveActivityModule.swift: the guide's three calls, exported to JavaScript
// as NativeModules.LiveActivityModule. scripts/check-ios-sources.sh checks that each @objc
// selector of the Swift module is exported here.
#import <React/RCTBridgeModule.h>
#import <React/RCTEventEmitter.h>

@interface RCT_EXTERN_MODULE(LiveActivityModule, RCTEventEmitter)

RCT_EXTERN_METHOD(
  startFlightActivity:(NSDictionary *)flightData
  resolver:(RCTPromiseResolveBlock)resolve
  rejecter:(RCTPromiseRejectBlock)reject
)

RCT_EXTERN_METHOD(
  updateFlightActivity:(NSString *)activityId
  updateData:(NSDictionary *)updateData
  resolver:(RCTPromiseResolveBlock)resolve
  rejecter:(RCTPromiseRejectBlock)reject
)

RCT_EXTERN_METHOD(
  endFlightActivity:(NSString *)activityId
  resolver:(RCTPromiseResolveBlock)resolve
  rejecter:(RCTPromiseRejectBlock)reject
)

RCT_EXTERN_METHOD(
  getApsEnvironment:(RCTPromiseResolveBlock)resolve
  rejecter:(RCTPromiseRejectBlock)reject
)

@end
