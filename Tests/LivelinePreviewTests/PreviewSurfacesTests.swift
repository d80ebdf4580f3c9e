import Foundation
import LivelineCore
import LivelineUI
import Testing
@testable import LivelinePreview

/// Sizes and surfaces beyond the 393-point phone's four presentations: other phones, Dynamic Type,
/// Always-On, StandBy, the small family, two activities, the alert banner, update bodies, state
/// strips, and what each page says it drew.
@Suite struct PreviewSurfacesTests {
    static let at = Fixtures.departure.addingTimeInterval(-3 * 3600)

    static func flight(_ options: PreviewOptions) throws -> PreviewDocument {
        try ActivityPreview.document(attributesType: "FlightAttributes", attributes: try JSONValue(encoding: Fixtures.attributes),
                                     contentState: try JSONValue(encoding: Fixtures.states[0]), options: options)
    }

    @Test("the 393-, 402- and 440-point phones: the Lock Screen 11 points in from each edge, the Island narrow or wide",
          arguments: [(PreviewPhone.iPhone393, 371.0, 230.66, 371.0), (.iPhone402, 380, 230.66, 371), (.iPhone440, 418, 250.66, 408)])
    func phones(phone: PreviewPhone, lock: Double, compact: Double, expanded: Double) throws {
        var options = PreviewOptions(at: Self.at)
        options.phone = phone
        let document = try Self.flight(options)
        #expect(document.box(.lockScreen)?.width == lock)
        #expect(document.box(.islandCompact)?.width == compact)
        #expect(document.box(.islandExpanded)?.width == expanded)
        #expect(document.fragments[.lockScreen]?.contains("width:\(CSS.px(lock))") == true)
        #expect(document.html.contains("content=\"width=\(phone.rawValue),") && document.html.contains(phone.title))
        let trailing = try #require(document.box(.islandCompact)?.content.last)
        #expect(trailing.x == Geometry.points(compact - (phone == .iPhone440 ? 62.33 : 52.33)))
    }

    @Test("Dynamic Type scales text in a named family (Font.custom) and not text at a system size", arguments: PreviewTextSize.allCases)
    func textSizes(size: PreviewTextSize) throws {
        let layout = try LayoutForm.parse(Array(#"""
            {"lockScreen":{"type":"VStack","children":[
              {"type":"Text","props":{"style":{"fontFamily":"Avenir","fontSize":15}},"children":"scaled"},
              {"type":"Text","props":{"style":{"fontFamily":"Avenir"}},"children":"body"},
              {"type":"Text","props":{"style":{"fontSize":15}},"children":"fixed"}]}}
            """#.utf8))
        var options = PreviewOptions(at: Self.at, presentations: [.lockScreen])
        options.textSize = size
        let document = ActivityPreview.document(layout: layout, warnings: [], options: options)
        let lock = try #require(document.fragments[.lockScreen])
        #expect(lock.contains("font-size:\(CSS.px(15 * size.bodySize / 17))\">scaled<") || lock.contains("font-size:\(CSS.px(15 * size.bodySize / 17));"), "\(lock)")
        #expect(lock.contains("font-size:\(CSS.px(size.bodySize))"), "\(lock)")
        #expect(lock.contains("font-size:15px;font-family:var(--ll-text)\">fixed<"), "\(lock)")
        if size == .large { #expect(!document.html.contains("text size")) } else { #expect(document.html.contains("text size \(size.rawValue.uppercased())")) }
        // The Lock Screen grows with the larger text (up to its 160 points).
        if size.bodySize > 40 {
            let large = ActivityPreview.document(layout: layout, warnings: [], options: PreviewOptions(at: Self.at, presentations: [.lockScreen]))
            #expect((document.box(.lockScreen)?.height ?? 0) > (large.box(.lockScreen)?.height ?? 0))
        }
        #expect(PreviewTextSize(name: size.rawValue.uppercased()) == size)
    }

    @Test("Always-On draws the Lock Screen dark and dimmed, and says so")
    func alwaysOn() throws {
        let layout = try LayoutForm.parse(Array(#"{"lockScreen":{"type":"Text","children":"hi"}}"#.utf8))
        var options = PreviewOptions(at: Self.at, presentations: [.lockScreen])
        let light = ActivityPreview.document(layout: layout, warnings: [], options: options)
        options.alwaysOn = true
        let dim = ActivityPreview.document(layout: layout, warnings: [], options: options)
        #expect(light.box(.lockScreen)?.background == "#FFFFFF" && dim.box(.lockScreen)?.background == "#000000")
        #expect(dim.fragments[.lockScreen]?.contains("filter:brightness(0.5)") == true && dim.fragments[.lockScreen]?.contains("ll-dark") == true)
        #expect(dim.html.contains("Always-On (reduced luminance)") && !light.html.contains("Always-On"))
        // A tint is dimmed too: the screenshot's background is half as bright.
        let flight = try Self.flight({ var o = options; o.alwaysOn = true; return o }())
        #expect(flight.box(.lockScreen)?.background == "#060910")  // #0B1220 at half brightness
    }

    @Test("StandBy: the Lock Screen view at 2x on the landscape screen, its tint extended to the whole screen; kept when ended")
    func standBy() throws {
        var options = PreviewOptions(at: Self.at, presentations: [.standBy])
        let document = try Self.flight(options)
        let box = try #require(document.box(.standBy))
        #expect(box.width == 852 && box.height == 393 && box.background == "#0B1220")
        let fragment = try #require(document.fragments[.standBy])
        #expect(fragment.contains("transform:scale(2)") && fragment.contains(">LIS<") && fragment.contains("width:371px"))
        let region = try #require(box.content.first)
        #expect(region.width == 742 && region.x == (852 - 742) / 2)
        options.ended = true
        #expect(try Self.flight(options).box(.standBy) != nil)
        options.phone = .iPhone440
        options.ended = false
        #expect(try Self.flight(options).box(.standBy)?.width == 956)
    }

    @Test("the small family: the supplemental region when there is one, else compact leading and trailing side by side with no spacing")
    func small() throws {
        let fallback = try Self.flight(PreviewOptions(at: Self.at, presentations: [.watchSmartStack, .carPlay]))
        let watch = try #require(fallback.box(.watchSmartStack)), car = try #require(fallback.box(.carPlay))
        #expect(watch.width == 191 && watch.height == 81.5 && car.width == 240 && car.height == 78)
        let tile = try #require(fallback.fragments[.watchSmartStack])
        #expect(tile.contains("data-symbol=\"airplane\"") && tile.contains(">2:30:00<"), "\(tile)")  // leading's plane, trailing's countdown
        #expect(!tile.contains("ll-gap"))
        let own = try LayoutForm.parse(Array(#"""
            {"lockScreen":{"type":"Text","children":"lock"},"supplementalActivityFamilies":{"small":{"type":"Text","children":"small only"}},
             "island":{"compact":{"leading":{"type":"Text","children":"lead"}}}}
            """#.utf8))
        let document = ActivityPreview.document(layout: own, warnings: [], options: PreviewOptions(at: Self.at, presentations: [.carPlay]))
        let fragment = try #require(document.fragments[.carPlay])
        #expect(fragment.contains(">small only<") && !fragment.contains(">lead<"))
    }

    @Test("two activities at once: the minimal view attached to the Island and detached beside it")
    func twoActivities() throws {
        let document = try Self.flight(PreviewOptions(at: Self.at, presentations: [.islandTwo]))
        let box = try #require(document.box(.islandTwo))
        #expect(box.width == Geometry.points(2 * 36.67 + 126 + 6) && box.height == 36.67)
        let fragment = try #require(document.fragments[.islandTwo])
        #expect(Fixtures.count("data-symbol=\"airplane\"", in: fragment) == 2)
        #expect(fragment.contains("ll-attached") && fragment.contains("ll-detached") && fragment.contains("ll-camera"))
    }

    @Test("the alert banner: the Lock Screen view, with the alert the Watch shows in its caption; none without an alert")
    func alertBanner() throws {
        let steps = try Fixtures.story()
        var options = PreviewOptions(at: Self.at, presentations: [.alertBanner, .lockScreen])
        let start = try ActivityPreview.document(apnsBody: Array(steps[0].body.serialized()), options: options)
        let box = try #require(start.box(.alertBanner))
        #expect(box.width == start.box(.lockScreen)?.width && box.height == start.box(.lockScreen)?.height && box.background == "#0B1220")
        #expect(start.fragments[.alertBanner]?.contains(">LIS<") == true && start.fragments[.alertBanner]?.contains("data-ll-box=\"alert-banner\"") == true)
        #expect(start.html.contains("the Watch shows: <b>Flight LL 1234 is tracked</b> Gate B12"), "\(start.html)")
        let update = try ActivityPreview.document(apnsBody: Array(steps[2].body.serialized()), attributesType: "FlightAttributes",
                                                  attributes: steps[0].body["aps"]?["attributes"], options: options)
        #expect(update.html.contains("the push has no alert: iOS shows no banner"))
        options.alert = PreviewAlert(title: "T", body: "B")
        #expect(try ActivityPreview.document(apnsBody: Array(steps[0].body.serialized()), options: options).html.contains("<b>T</b> B"))
    }

    @Test("an update body is drawn with the type and attributes given; a different type in the body is refused; an end body draws the ended activity")
    func updateBodies() throws {
        let steps = try Fixtures.story()
        let attributes = steps[0].body["aps"]?["attributes"]
        let update = Array(steps[3].body.serialized())
        #expect(throws: PreviewError.self) { try ActivityPreview.document(apnsBody: update, options: PreviewOptions(at: Self.at)) }
        let document = try ActivityPreview.document(apnsBody: update, attributesType: "FlightAttributes", attributes: attributes, options: PreviewOptions(at: Self.at))
        #expect(document.fragments[.lockScreen]?.contains(">Boarding<") == true && document.boxes.count == 4)
        #expect(document.html.contains("Drawn: FlightAttributes through its template (Examples/FlightTracker/FlightActivity.template.json, its fields read as FlightActivityAttributes&#39;s)"))
        let error = #expect(throws: PreviewError.self) {
            try ActivityPreview.document(apnsBody: Array(steps[0].body.serialized()), attributesType: "RideAttributes", attributes: nil,
                                         options: PreviewOptions(at: Self.at))
        }
        #expect(error?.description.contains("aps.attributes-type is 'FlightAttributes', not 'RideAttributes'") == true)
        let end = try ActivityPreview.document(apnsBody: Array(steps[4].body.serialized()), attributesType: "FlightAttributes", attributes: attributes,
                                               options: PreviewOptions(at: Self.at))
        #expect(end.boxes.map(\.presentation) == [.lockScreen] && end.html.contains("ended: on the Lock Screen until dismissed"))
        // The message for a bare update names the flags that fix it.
        let bare = #expect(throws: PreviewError.self) { try ActivityPreview.document(apnsBody: update, options: PreviewOptions(at: Self.at)) }
        #expect(bare?.description.contains("--type T --attributes JSON") == true)
    }

    @Test("a strip of states: a row per state in order, each its Lock Screen and compact Island, warnings named by state")
    func strip() throws {
        let steps = try Fixtures.story()
        let attributes = steps[0].body["aps"]?["attributes"]
        let documents = try steps.map {
            try ActivityPreview.document(apnsBody: Array($0.body.serialized()), attributesType: "FlightAttributes", attributes: attributes,
                                         options: PreviewOptions(at: $0.at))
        }
        let strip = PreviewStrip(Array(zip(steps.map(\.title), documents)).map { (name: $0.0, document: $0.1) }, title: "LL 1234")
        #expect(Fixtures.count("class=\"ll-strip-row\"", in: strip.html) == 5 && strip.html.contains("data-ll-strip=\"5\""))
        let rows = strip.html.components(separatedBy: "class=\"ll-strip-row\"").dropFirst()
        for (row, step) in zip(rows, steps) {
            #expect(row.contains(step.title) && row.contains(">\(step.status)<"), "\(step.title)")
        }
        // The ended (landed) state has no Island left to show.
        #expect(rows.last?.contains("data-ll-strip-cell=\"island-compact\"") == false && rows.first?.contains("data-ll-strip-cell=\"island-compact\"") == true)
        #expect(strip.warnings.isEmpty)
    }

    @Test("a named family draws regular (Font.custom takes no weight), an unknown family in the system font, and no border without a colour")
    func voltraStyleRules() throws {
        let lock = try #require(try ActivityPreviewTests.document(#"""
            {"lockScreen":{"type":"VStack","children":[
              {"type":"Text","props":{"style":{"fontFamily":"Georgia","fontWeight":"700"}},"children":"serif"},
              {"type":"Text","props":{"style":{"fontFamily":"Comic Neue","fontWeight":"bold"}},"children":"unknown"},
              {"type":"Text","props":{"style":{"borderWidth":2}},"children":"no border"},
              {"type":"Text","props":{"style":{"borderWidth":2,"borderColor":"red"}},"children":"border"}]}}
            """#, presentations: [.lockScreen]).fragments[.lockScreen])
        #expect(lock.contains("font-family:var(--ll-serif);font-weight:400;font-size:17px\">serif<"), "\(lock)")
        #expect(lock.contains("font-family:var(--ll-text);font-weight:400;font-size:17px\">unknown<") && !lock.contains("Comic Neue"), "\(lock)")
        #expect(!lock.contains("font-weight:700"))
        #expect(lock.contains("\">no border<") && !lock.contains("border:2px solid #000000"), "\(lock)")
        #expect(lock.contains("border:2px solid #FF383C"), "\(lock)")
    }
}
