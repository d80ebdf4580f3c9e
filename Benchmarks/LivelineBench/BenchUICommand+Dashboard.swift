import Foundation
import LivelineCommandLine
import LivelineCore
import LivelineSimulatorDashboard
import LivelineSimulator
import LivelineProcess
import LivelineTesting

/// The dashboard's figure: how long from a push accepted to the device's card changed in the
/// page's DOM, in headless Chromium (Debian's `chromium` and `chromium-driver`), beside a reference
/// in the same run: the same events' arrival in the page (the bare server-sent-event trip, before
/// anything is drawn).
extension BenchUICommand {
    /// Runs `pushes` updates through an in-process simulator and its dashboard open in Chromium;
    /// the report's lines.
    static func dashboardLatencyReport(pushes: Int = 50) async throws -> String {
        let clock = LiveClock()
        let bundleID = "com.example.liveline"
        let simulator = Simulator(configuration: SimulatorConfiguration(apps: [AppRegistration(bundleID: bundleID, teamID: "BENCHTEAM1")]), clock: clock)
        let device = simulator.addDevice(name: "iPhone", osVersion: "18.2", id: "bench-phone")
        try simulator.install(bundleID, on: device, activityTypes: [.type(FlightAttributes.self)])
        let departure = clock.now.addingTimeInterval(7200)
        func state(_ gate: String) -> JSONValue {
            ["status": "boarding", "gate": .string(gate), "boardingTime": .number(departure.timeIntervalSinceReferenceDate - 1800),
             "delayMinutes": 0, "isBoarding": true]
        }
        let attributes: JSONValue = ["flightNumber": "LL 1234", "origin": "LIS", "destination": "ZRH", "airline": "Liveline Air",
                                     "departure": .number(departure.timeIntervalSinceReferenceDate)]
        let activity = try simulator.startActivity(on: device, bundleID: bundleID, attributesType: FlightAttributes.attributesType,
                                                   attributes: attributes, contentState: state("A1"))
        guard let token = activity.pushToken else { throw CLIError(message: "bench ui: the activity got no update token") }
        let dashboard = try Dashboard.start(control: SimulatorControl(simulator: simulator))
        let browser: WebDriverSession
        do {
            browser = try await WebDriverSession.start()
        } catch {
            await dashboard.stop()
            throw error
        }
        var delivered: [Double] = []
        var drawn: [Double] = []
        do {
            try await browser.open(dashboard.accessURL)
            try await browser.waitUntilLive()
            var timestamp = clock.now.timeIntervalSince1970.rounded(.up)
            for n in 0...pushes {
                timestamp += 1
                let body: JSONValue = ["aps": ["timestamp": .number(timestamp), "event": "update", "content-state": state("G\(n)")]]
                // Priority 5: outside the hourly budget of priority-10 updates, so every one is applied.
                let request = PushRequest.liveActivity(try LiveActivityPush(body: body), bundleID: bundleID, priority: .considerate)
                let response = simulator.push(request, to: token)
                let accepted = Date().timeIntervalSince1970 * 1000
                guard response.status == 200, let record = simulator.log().last, case .accepted = record.verdict else {
                    throw CLIError(message: "bench ui: push \(n) was not applied (\(response.status)): \(simulator.log().last.map { "\($0.verdict)" } ?? "no record")")
                }
                let sequence = record.sequence
                let times = try await browser.waitForEvent(kind: "push-accepted", sequence: sequence)
                if n == 0 { continue }  // the first one warms the page up
                delivered.append(times.arrived - accepted)
                drawn.append(times.rendered - accepted)
            }
        } catch {
            await browser.close()
            await dashboard.stop()
            throw error
        }
        await browser.close()
        await dashboard.stop()
        func line(_ name: String, _ values: [Double]) -> String {
            let sorted = values.sorted()
            let median = sorted[sorted.count / 2]
            let p95 = sorted[min(sorted.count - 1, Int((Double(sorted.count) * 0.95).rounded(.up)) - 1)]
            return "  \(pad(name, 50))\(String(format: "%8.2f", median)) ms \(String(format: "%8.2f", p95)) ms"
        }
        return """

            dashboard update latency, push accepted → page (headless Chromium, \(delivered.count) pushes, one device card):
              \(pad("", 50))  median      p95
            \(line("event arrived in the page (reference: bare SSE)", delivered))
            \(line("device card changed in the DOM", drawn))
            """
    }
}

/// The few WebDriver calls the bench needs, over HTTP to a chromedriver it starts.
private struct WebDriverSession: Sendable {
    let driver: RunningProcess
    let base: String

    static func start() async throws -> WebDriverSession {
        for tool in ["/usr/bin/chromedriver", "/usr/bin/chromium"] where !FileManager.default.isExecutableFile(atPath: tool) {
            throw CLIError(message: "bench ui: \(tool) is missing; install chromium and chromium-driver (scripts/install-deps.sh test)")
        }
        let port = try ServerProcess.freePort()
        let driver = try RunningProcess.start("/usr/bin/chromedriver", ["--port=\(port)"], keepStandardError: true)
        _ = try await driver.output(containing: "ChromeDriver was started successfully")
        let base = "http://127.0.0.1:\(port)"
        let capabilities: JSONValue = ["capabilities": ["alwaysMatch": ["browserName": "chrome", "goog:chromeOptions": [
            "binary": "/usr/bin/chromium", "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1200,900"],
        ]]]]
        do {
            let created = try await call(base, "POST", "/session", capabilities)
            guard let id = created["value"]?["sessionId"]?.stringValue else {
                throw CLIError(message: "bench ui: chromedriver made no session: \(created.jsonString.prefix(300))")
            }
            let session = WebDriverSession(driver: driver, base: "\(base)/session/\(id)")
            do {
                _ = try await call(session.base, "POST", "/timeouts", ["script": 60_000, "pageLoad": 60_000])
            } catch {
                await session.close()
                throw error
            }
            return session
        } catch {
            // SIGTERM lets chromedriver take its browser down with it.
            driver.send(SIGTERM)
            _ = await driver.exitStatus()
            throw error
        }
    }

    func open(_ url: String) async throws {
        _ = try await Self.call(base, "POST", "/url", ["url": .string(url)])
    }

    /// Waits in the page (a mutation observer, no polling) until it has loaded and its event stream is open.
    func waitUntilLive() async throws {
        let script = """
            const done = arguments[arguments.length - 1];
            const ready = () => document.body.dataset.loaded === "true" && document.getElementById("connection").textContent === "live";
            if (ready()) { done(true); return; }
            const observer = new MutationObserver(() => { if (ready()) { observer.disconnect(); done(true); } });
            observer.observe(document.body, { attributes: true, subtree: true, childList: true, characterData: true });
            """
        let answer = try await Self.call(base, "POST", "/execute/async", ["script": .string(script), "args": []])
        guard answer["value"] == true else { throw CLIError(message: "bench ui: the page did not get ready: \(answer.jsonString.prefix(300))") }
    }

    /// Waits in the page (no polling: a listener on the page's event) for the event of push
    /// `sequence`; when it arrived and when its card was in the DOM (epoch milliseconds).
    func waitForEvent(kind: String, sequence: Int) async throws -> (arrived: Double, rendered: Double) {
        let script = """
            const done = arguments[arguments.length - 1];
            const match = e => e.kind === arguments[0] && e.sequence === arguments[1];
            const found = window.dashboardStats.events.find(match);
            if (found) { done([found.arrived, found.rendered]); return; }
            window.addEventListener("dashboard-event", function listener(event) {
              if (!match(event.detail)) return;
              window.removeEventListener("dashboard-event", listener);
              done([event.detail.arrived, event.detail.rendered]);
            });
            """
        let answer = try await Self.call(base, "POST", "/execute/async", ["script": .string(script), "args": [.string(kind), .number(Double(sequence))]])
        guard let pair = answer["value"]?.arrayValue, pair.count == 2, let arrived = pair[0].numberValue, let rendered = pair[1].numberValue else {
            throw CLIError(message: "bench ui: no \(kind) event for push \(sequence) in the page: \(answer.jsonString.prefix(300))")
        }
        return (arrived, rendered)
    }

    func close() async {
        _ = try? await Self.call(base, "DELETE", "", nil)
        driver.send(SIGTERM)
        _ = await driver.exitStatus()
    }

    /// One WebDriver command through curl (chromedriver writes headers without a space after the
    /// colon, which FoundationNetworking's URLSession refuses).
    static func call(_ base: String, _ method: String, _ path: String, _ body: JSONValue?) async throws -> JSONValue {
        var arguments = ["-sS", "--max-time", "120", "-X", method, base + path]
        if let body { arguments += ["-H", "Content-Type: application/json", "--data-binary", body.jsonString] }
        let output = try await ProcessRunner.run("/usr/bin/curl", arguments)
        guard output.status == 0 else {
            throw CLIError(message: "bench ui: WebDriver \(method) \(path) failed: \(output.stderrText)")
        }
        return (try? JSONValue.parse(Array(output.stdout))) ?? .null
    }
}
