import Foundation
import LivelineCore
import LivelineKit
import LivelineSimulator

/// The app on a simulated iPhone, running LivelineKit as an iOS app would: a coordinator over the
/// phone's ActivityKit (`SimulatedActivityKit`), an uploader with its queue in `directory`, talking
/// to the configured service. Each `look` hands it what the simulator shows now.
///
/// Module: LivelineKitSimulator owns the simulated iPhones' apps, the bridge between LivelineKit
/// and the simulator's devices. It imports LivelineCore, LivelineKit and LivelineSimulator only; it
/// must never import the service or the store (it reaches the service over HTTP, as an app does).
public actor SimulatedPhoneApp {
    public let activityKit: SimulatedActivityKit
    public let uploader: TokenUploader
    public let coordinator: LiveActivityCoordinator
    private var yielded = 0
    /// The client the app was built with, and whether its environment came from the phone.
    private var client: LivelineAppClient
    private let deviceID: String

    /// - Parameters:
    ///   - device: the registration (its `deviceID` is the simulator's device id).
    ///   - attributesTypes: the activity types the app declares.
    ///   - client: the service, with an app key.
    ///   - directory: the app's container (its queue and memory of activities).
    ///   - configure: coordinator settings beyond the device (receipts, the 8-hour limit).
    ///   - log: the app's log lines (ids and token prefixes only).
    public init(device: DeviceRegistration, attributesTypes: [String], client: LivelineAppClient, directory: URL,
                configure: (inout LiveActivityCoordinator.Configuration) -> Void = { _ in },
                log: @escaping @Sendable (String) -> Void = { _ in }) throws {
        activityKit = SimulatedActivityKit(deviceID: device.deviceID, bundleID: device.bundleID)
        self.client = client
        deviceID = device.deviceID
        uploader = try TokenUploader(directory: directory, client: client, deviceID: device.deviceID, environment: UploaderEnvironment(log: log))
        var configuration = LiveActivityCoordinator.Configuration(device: device)
        configuration.drainsAutomatically = false
        configure(&configuration)
        coordinator = try LiveActivityCoordinator(uploader: uploader, kinds: attributesTypes.map(activityKit.kind),
                                                  authorization: activityKit.authorization, configuration: configuration,
                                                  directory: directory, log: log)
    }

    /// Launches the app on what the simulator shows: registers the device and every token, and
    /// returns once the service has them (or the budget is spent).
    @discardableResult
    public func launch(devices: JSONValue, activities: JSONValue, within budget: Duration = .seconds(25)) async -> TokenUploader.DrainReport {
        activityKit.apply(devices: devices, activities: activities)
        await adoptEnvironment(devices)
        await coordinator.start()
        return await uploader.drain(within: budget)
    }

    /// The simulated build's `aps-environment` is its phone's (the simulator's stand-in for the
    /// embedded provisioning profile), unless the client states one: LivelineKit then sends it
    /// with every token, as on a real phone.
    private func adoptEnvironment(_ devices: JSONValue) async {
        guard client.apsEnvironment == nil,
              let device = devices.arrayValue?.first(where: { $0["id"]?.stringValue == deviceID }),
              let environment = device["environment"]?.stringValue.flatMap(APSEnvironment.init(entitlement:)) else { return }
        client.apsEnvironment = environment
        await uploader.setClient(client)
    }

    /// The app sees what changed since the last look (new activities, rotated tokens, ended
    /// activities) through ActivityKit's streams, and sends it.
    @discardableResult
    public func look(devices: JSONValue, activities: JSONValue, within budget: Duration = .seconds(25)) async -> TokenUploader.DrainReport {
        yielded += activityKit.apply(devices: devices, activities: activities)
        await coordinator.waitForEvents(yielded)
        return await uploader.drain(within: budget)
    }

    /// `launch` on an in-process simulator.
    @discardableResult
    public func launch(_ simulator: Simulator) async -> TokenUploader.DrainReport {
        await launch(devices: simulator.devicesJSON(), activities: simulator.activitiesJSON())
    }

    /// `look` on an in-process simulator.
    @discardableResult
    public func look(_ simulator: Simulator) async -> TokenUploader.DrainReport {
        await look(devices: simulator.devicesJSON(), activities: simulator.activitiesJSON())
    }

    /// Stops observing.
    public func stop() async {
        await coordinator.stop()
    }
}
