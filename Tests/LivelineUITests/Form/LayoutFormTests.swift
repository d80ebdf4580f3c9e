import Foundation
import LivelineCore
import Testing
@testable import LivelineUI

@Suite struct LayoutFormTests {
    /// One node of every component, with props of every kind (numbers, strings, booleans, nested
    /// component props, styles as objects and arrays).
    static let everyComponent: [(String, String)] = [
        ("Text", ##"{"type":"Text","id":"t1","props":{"numberOfLines":2,"multilineTextAlignment":"center","style":{"fontSize":14,"fontVariant":["tabular-nums"]}},"children":["Gate ",12,false,"B"]}"##),
        ("Button", ##"{"type":"Button","id":"checkin","props":{"buttonStyle":"borderedProminent"},"children":{"type":"Text","children":"Check in"}}"##),
        ("Label", ##"{"type":"Label","props":{"title":"Boarding","systemImage":"airplane"}}"##),
        ("Image", ##"{"type":"Image","props":{"source":{"assetName":"logo"},"resizeMode":"contain","fallback":{"type":"Symbol","props":{"name":"photo"}}}}"##),
        ("Symbol", ##"{"type":"Symbol","props":{"name":"cloud.sun.fill","type":"palette","colors":["#fff","#fc0"],"size":20,"weight":"bold"}}"##),
        ("Toggle", ##"{"type":"Toggle","id":"alerts","props":{"defaultValue":true,"title":"Alerts"}}"##),
        ("LinearProgressView", ##"{"type":"LinearProgressView","props":{"value":0.4,"maximumValue":1,"trackColor":"#333","progressColor":"#0f0","height":6,"label":{"type":"Text","children":"Taxi"},"currentValueLabel":{"type":"Text","children":"40%"}}}"##),
        ("CircularProgressView", ##"{"type":"CircularProgressView","props":{"startAtMs":1767225600000,"endAtMs":1767229200000,"countDown":true,"lineWidth":3}}"##),
        ("Gauge", ##"{"type":"Gauge","props":{"value":0.25,"gaugeStyle":"accessoryCircular","tintColor":"orange","minimumValueLabel":{"type":"Text","children":"E"},"maximumValueLabel":{"type":"Text","children":"F"}}}"##),
        ("Timer", ##"{"type":"Timer","props":{"endAtMs":1767229200000,"direction":"down","textStyle":"timer","textTemplates":{"running":"Boards in {time}","completed":"Boarding"},"showHours":false}}"##),
        ("LinearGradient", ##"{"type":"LinearGradient","props":{"colors":["#0B1220","#1E293B"],"locations":[0,1],"start":{"x":0,"y":0},"end":[1,0.25],"dither":true},"children":{"type":"Spacer"}}"##),
        ("VStack", ##"{"type":"VStack","props":{"alignment":"leading","spacing":4,"layout":"stack"},"children":[{"type":"Divider"}]}"##),
        ("HStack", ##"{"type":"HStack","props":{"alignment":"top","spacing":8,"style":[{"padding":4,"opacity":0.5},null,{"padding":6}]},"children":[{"type":"Spacer","props":{"minLength":2}}]}"##),
        ("ZStack", ##"{"type":"ZStack","props":{"alignment":"topLeading"},"children":[{"type":"Text","children":"a"},{"type":"Text","children":"b"}]}"##),
        ("GroupBox", ##"{"type":"GroupBox","props":{"label":{"type":"Label","props":{"title":"Trip"}}},"children":{"type":"Text","children":"LIS"}}"##),
        ("GlassContainer", ##"{"type":"GlassContainer","props":{"spacing":10,"style":{"glassEffect":"regular"}},"children":{"type":"Text","children":"glass"}}"##),
        ("Spacer", ##"{"type":"Spacer","props":{"minLength":0}}"##),
        ("Divider", ##"{"type":"Divider","props":{"style":{"backgroundColor":"rgba(255,255,255,0.2)"}}}"##),
        ("Mask", ##"{"type":"Mask","props":{"maskElement":{"type":"Text","children":"MASK"}},"children":{"type":"LinearGradient","props":{"colors":["red","blue"]}}}"##),
        ("Link", ##"{"type":"Link","props":{"destination":"/flights/LL1234"},"children":{"type":"Text","children":"Open"}}"##),
        ("View", ##"{"type":"View","props":{"style":{"flexDirection":"row","gap":4,"shadowOffset":{"width":0,"height":2},"transform":[{"rotate":"45deg"}]}},"children":[{"type":"Text","children":"v"}]}"##),
        ("Chart", ##"{"type":"Chart","props":{"xAxisVisibility":"hidden","foregroundStyleScale":{"on time":"green","late":"red"},"yAxisGridStyle":{"visible":true,"dash":[2,2]}},"children":[{"type":"BarMark","props":{"data":[{"x":"Mon","y":3,"series":"late"},{"x":"Tue","y":5}],"color":"red","stacking":"grouped","cornerRadius":2}},{"type":"RuleMark","props":{"yValue":4,"lineWidth":1}},{"type":"SectorMark","props":{"data":[{"value":3,"category":"a"}],"innerRadius":0.5}}]}"##),
    ]

    @Test func everyComponentIsCovered() {
        #expect(Set(Self.everyComponent.map(\.0)) == Set(Component.allCases.map(\.rawValue)))
    }

    @Test(arguments: everyComponent.map(\.0))
    func roundTripEncodeDecodeForEveryComponent(name: String) throws {
        let node = Self.everyComponent.first { $0.0 == name }!.1
        let layout = try LayoutForm.parse(Array(##"{"lockScreen":\##(node),"island":{"minimal":\##(node)}}"##.utf8))
        for mode in EncodingMode.allCases {
            let encoded = VoltraEncoder.encode(layout, mode: mode)
            let decoded = try VoltraDecoder.decode(base64: encoded.base64)
            #expect(decoded.issues.isEmpty, "\(decoded.issues)")
            #expect(LayoutForm.json(decoded.layout) == LayoutForm.json(layout))
            #expect(decoded.layout[.lockScreen]?.component.rawValue == name)
        }
        // Compatibility bytes survive decode → encode unchanged.
        let compat = VoltraEncoder.encode(layout, mode: .compatible)
        let again = try VoltraDecoder.decode(base64: compat.base64).layout
        #expect(VoltraEncoder.encode(again, mode: .compatible).json == compat.json)
    }

    @Test func propsKeepTheirWrittenOrderAndComponentRewritesApply() throws {
        let json = ##"{"lockScreen":{"type":"VStack","children":[\##(Self.everyComponent.map(\.1).joined(separator: ","))]}}"##
        let wire = VoltraEncoder.encode(try LayoutForm.parse(Array(json.utf8)), mode: .compatible).jsonString
        let expectations = [
            ##"{"t":0,"i":"t1","c":"Gate 12B","p":{"nol":2,"mta":"center","s":0}}"##,
            ##"{"t":3,"p":{"rm":"contain","flb":{"t":4,"p":{"n":"photo"}},"src":"{\"assetName\":\"logo\"}"}}"##,
            ##"{"t":4,"p":{"n":"cloud.sun.fill","typ":"palette","cls":"#fff|#fc0","sz":20,"wt":"bold"}}"##,
            ##""tt":"{\"running\":\"Boards in {time}\",\"completed\":\"Boarding\"}""##,
            ##"{"t":10,"c":{"t":16},"p":{"cls":"#0B1220|#1E293B","sts":"#0B1220@0|#1E293B@1","stp":"topLeading","ep":"1,0.25","dth":true}}"##,
            ##"{"pad":6,"op":0.5}"##,
            ##""p":{"xav":"hidden","mrk":"[[\"bar\",[[\"Mon\",3,\"late\"],[\"Tue\",5]],{\"c\":\"red\",\"stk\":\"grouped\",\"cr\":2}],[\"rule\",null,{\"lw\":1,\"yv\":4}],[\"sector\",[[3,\"a\"]],{\"ir\":0.5}]]","fss":"[[\"on time\",\"green\"],[\"late\",\"red\"]]","ygs":"{\"v\":true,\"d\":[2,2]}"}"##,
            ##"{"t":5,"i":"alerts","p":{"dv":true,"ttl":"Alerts"}}"##,
            ##"{"fdir":"row","g":4,"sho":{"width":0,"height":2},"tf":[{"rotate":"45deg"}]}"##,
        ]
        for expected in expectations { #expect(wire.contains(expected), "missing \(expected)") }
    }

    @Test(arguments: [
        (##"[]"##, "invalid layout at the top level: expected an object with lockScreen / island / supplementalActivityFamilies, got array []"),
        (##"{"lockscreen":{}}"##, "invalid layout at lockscreen: unknown key; expected lockScreen, island or supplementalActivityFamilies"),
        (##"{"lockScreen":{"type":"VStak"}}"##, ##"invalid layout at lockScreen.type: unknown component "VStak" (did you mean "VStack"?)"##),
        (##"{"lockScreen":{"props":{}}}"##, ##"invalid layout at lockScreen.type: missing "type""##),
        (##"{"lockScreen":{"type":"VStack","style":{}}}"##, ##"invalid layout at lockScreen.style: unknown node key; a node has type, id, props and children (props go inside "props")"##),
        (##"{"lockScreen":{"type":"VStack","children":"hi"}}"##, ##"invalid layout at lockScreen.children: raw text "hi" cannot be a child of VStack (Voltra's renderer rejects it); wrap it in {"type": "Text", "children": ...}"##),
        (##"{"lockScreen":{"type":"Text","children":[{"type":"Text"}]}}"##, "invalid layout at lockScreen.children[0]: Text children must be text (strings or numbers), got a node; use an HStack of Texts to mix"),
        (##"{"island":{"compact":{"leading":{"type":"Text","props":{"style":5}}}}}"##, "invalid layout at island.compact.leading.props.style: style must be an object or an array of objects, got number 5"),
        (##"{"island":{"expanded":{"middle":{}}}}"##, "invalid layout at island.expanded.middle: unknown key; expected one of center, leading, trailing, bottom"),
        (##"{"lockScreen":{"content":{"type":"Text"},"activityBackgroundTint":1}}"##, ##"invalid layout at lockScreen.activityBackgroundTint: a color must be a string such as "#101828", got number 1"##),
        (##"{"lockScreen":{"content":{"type":"Text"},"tint":"red"}}"##, "invalid layout at lockScreen.tint: unknown key; expected one of content, activityBackgroundTint"),
        (##"{"lockScreen":{"type":"BarMark"}}"##, "invalid layout at lockScreen.type: BarMark is only allowed as a child of a Chart"),
        (##"{"lockScreen":{"type":"Chart","children":[{"type":"LineMark","props":{}}]}}"##, ##"invalid layout at lockScreen.children[0].props.data: a line mark needs "data": an array of points"##),
        (##"{"lockScreen":{"type":"LinearGradient","props":{"colors":["red"],"locations":[0,1]}}}"##, "invalid layout at lockScreen.props.locations: has 2 entries but colors has 1; give one location per color"),
        (##"{"lockScreen":{"type":"Gauge","props":{"currentValueLabel":"50%"}}}"##, ##"invalid layout at lockScreen.props.currentValueLabel: currentValueLabel takes a node or an array of nodes, got string "50%""##),
        (##"{"lockScreen": {"type": "Text",}}"##, "layout is not valid JSON: invalid JSON at line 1, column 32: "),
    ])
    func malformedLayoutsGetErrorsNamingThePathAndTheValue(json: String, message: String) {
        #expect {
            try LayoutForm.parse(Array(json.utf8))
        } throws: { error in
            guard let error = error as? UIError, error.code == .invalidLayout else { return false }
            return error.message.hasPrefix(message)
        }
    }

    @Test func lockScreenWrapperAndTintsAndFragments() throws {
        let json = ##"{"lockScreen":{"content":[{"type":"Text","children":"a"},{"type":"Text","children":"b"}],"activityBackgroundTint":"#101828"},"island":{"keylineTint":"cyan","minimal":{"type":"Text","children":"m"}},"supplementalActivityFamilies":{"small":{"type":"Text","children":"s"}}}"##
        let layout = try LayoutForm.parse(Array(json.utf8))
        let wire = VoltraEncoder.encode(layout, mode: .compatible).jsonString
        #expect(wire == ##"{"v":1,"ls":[{"t":0,"c":"a"},{"t":0,"c":"b"}],"isl_min":{"t":0,"c":"m"},"saf_sm":{"t":0,"c":"s"},"ls_background_tint":"#101828","isl_keyline_tint":"cyan"}"##)
        let decoded = try VoltraDecoder.decode(base64: VoltraEncoder.encode(layout).base64)
        #expect(LayoutForm.json(decoded.layout) == (try JSONValue.parse(json)))
    }
}
