import Foundation
import LivelineCore
import Testing
@testable import LivelineUI

@Suite struct UIBuilderTests {
    @Test func dslReproducesTheRideExampleByteForByte() {
        let layout = UILayout {
            LockScreen {
                VStack {
                    Symbol("car.fill", type: .hierarchical, scale: .large, tint: "#38BDF8")
                    Text("Driver arrived").foregroundColor("#F8FAFC").fontSize(18).fontWeight(.semibold)
                    Text("Ready for pickup").foregroundColor("#94A3B8").fontSize(12).marginTop(8)
                }
                .padding(16).cornerRadius(18).backgroundColor("#101828")
            }
        }
        #expect(VoltraEncoder.encode(layout, mode: .compatible).jsonString == SpecVectors.rideJSON)
    }

    @Test func sharedViewsBecomeReferencesInCompatibleMode() {
        let star = Shared(Symbol("star.fill", tint: "#FFD60A"))
        let title = Shared(Text("Order #42").fontWeight(.bold))
        let layout = UILayout {
            LockScreen { HStack { star; title } }
            CompactLeading { star }
            CompactTrailing { title }
            Minimal { star }
        }
        #expect(VoltraEncoder.encode(layout, mode: .compatible).jsonString == SpecVectors.orderJSON)
    }

    @Test func controlFlowTintsFragmentsAndIds() {
        let items = ["A", "B", "C"]
        let showExtra = false
        let layout = UILayout {
            LockScreen(backgroundTint: .black) {
                HStack(spacing: 4) {
                    for item in items { Text(item) }
                    if showExtra { Divider() } else { Spacer(minLength: 2) }
                }
                Button(id: "ok", style: .bordered) { Label("OK", systemImage: "checkmark") }
            }
            Minimal(keylineTint: Color(hex: 0x38BDF8)) { Toggle(id: "alerts", isOn: true) }
        }
        let json = VoltraEncoder.encode(layout, mode: .compatible).jsonString
        #expect(json == ##"{"v":1,"ls":[{"t":12,"c":[{"t":0,"c":"A"},{"t":0,"c":"B"},{"t":0,"c":"C"},{"t":16,"p":{"minl":2}}],"p":{"sp":4}},{"t":1,"i":"ok","c":{"t":2,"p":{"ttl":"OK","si":"checkmark"}},"p":{"bs":"bordered"}}],"isl_min":{"t":5,"i":"alerts","p":{"dv":true}},"ls_background_tint":"black","isl_keyline_tint":"#38BDF8"}"##)
    }

    @Test func typedValuesUseTheWireEncodings() {
        let start = Date(timeIntervalSince1970: 1_767_225_600)
        let layout = UILayout {
            LockScreen {
                VStack {
                    Timer(end: start.addingTimeInterval(90), style: .timer, running: "in {time}", showHours: false)
                    LinearProgressView(.timeRange(start...start.addingTimeInterval(3600), countDown: true), height: 4)
                    LinearGradient(colors: ["#f00", "#00f"], locations: [0, 0.5], start: .top, end: .point(x: 1, y: 0.25))
                    Image(.asset("logo"), resizeMode: .contain) { Symbol("photo") }.opacity(0.5)
                    Chart([.bar([ChartPoint("Mon", 3)], color: .red), .rule(y: 2)], xAxis: .hidden)
                    Text("x").frame(width: .fill, height: 20).transform([.rotate(degrees: 45)]).shadow(radius: 2, y: 1)
                }
            }
        }
        let json = VoltraEncoder.encode(layout, mode: .compatible).jsonString
        for expected in [
            #"{"t":9,"p":{"end":1767225690000,"ts":"timer","tt":"{\"running\":\"in {time}\"}","shrs":false}}"#,
            #"{"t":6,"p":{"start":1767225600000,"end":1767229200000,"cd":true,"h":4}}"#,
            ##"{"t":10,"p":{"cls":"#f00|#00f","sts":"#f00@0|#00f@0.5","stp":"top","ep":"1,0.25"}}"##,
            #"{"t":3,"p":{"rm":"contain","flb":{"t":4,"p":{"n":"photo"}},"s":0,"src":"{\"assetName\":\"logo\"}"}}"#,
            #"{"t":21,"p":{"xav":"hidden","mrk":"[[\"bar\",[[\"Mon\",3]],{\"c\":\"red\"}],[\"rule\",null,{\"yv\":2}]]"}}"#,
            #"{"w":"100%","h":20,"tf":[{"rotate":"45deg"}],"shc":"black","sho":{"width":0,"height":1},"shop":1,"shr":2}"#,
        ] {
            #expect(json.contains(expected), "missing \(expected) in \(json)")
        }
    }
}

@Suite struct DocsExampleTests {
    /// The example of docs/ui.md compiles and stays within budget.
    @Test func docsExampleEncodesWithinBudget() throws {
        let boarding = Date(timeIntervalSince1970: 1_767_256_200)
        let layout = UILayout {
            LockScreen(backgroundTint: "#0B1220") {
                VStack(alignment: .leading, spacing: 6) {
                    HStack { Text("LIS").font(size: 28, weight: .heavy); Spacer(); Symbol("airplane", tint: "#38BDF8"); Spacer(); Text("ZRH").font(size: 28, weight: .heavy) }
                    Timer(end: boarding, running: "Boards in {time}", completed: "Boarding").fontSize(13).foregroundColor("#94A3B8")
                }
                .padding(16)
            }
            CompactTrailing { Text("Gate B12") }
            Minimal(keylineTint: .cyan) { Symbol("airplane") }
        }
        let state = try VoltraAttributes.ContentState(layout: layout)
        let push = try LiveActivityPush.start(attributes: VoltraAttributes(name: "LL1234"), state: state, alert: Alert(title: "LL 1234", body: "Boarding soon"))
        #expect(push.attributesType == "VoltraAttributes")
        #expect(push.contentState?["uiJsonData"] == .string(state.uiJsonData))
        try VoltraBudget.checkBody(push.body.serialized(), encoded: VoltraEncoder.encode(layout))
    }
}
