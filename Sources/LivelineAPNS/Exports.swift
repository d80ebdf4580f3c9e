// The client's API speaks LivelineCore's types (PushRequest, APNSReason, ...): importing
// LivelineAPNS brings them along.
@_exported import LivelineCore
