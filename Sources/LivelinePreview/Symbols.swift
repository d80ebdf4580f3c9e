/// Stand-ins for SF Symbols, drawn for Liveline on a 24-point grid (SF Symbols themselves may not be
/// shipped or drawn outside Apple platforms; these are not traced from them). Common travel,
/// delivery, sport and status names draw as an icon; others as a labelled rounded placeholder.
enum Symbols {
    /// One stroke of an icon.
    enum Part: Sendable {
        /// An open line: always stroked.
        case line(String)
        /// A closed shape: stroked, or filled in the `.fill` variant.
        case shape(String)
        /// A closed shape always filled (a dot, a plane's silhouette).
        case solid(String)
        /// A line inside a shape: stroked, or cut out of the shape in the `.fill` variant (a clock's hands).
        case cut(String)
        /// A dot inside a shape: filled, or cut out of the shape in the `.fill` variant.
        case hole(String)
    }

    /// The icons by base name.
    static let icons: [String: [Part]] = {
        let plane = "M21.5 12c0-.8-.7-1.5-1.5-1.5h-5L10 3H8l2.5 7.5H6L4.5 8.5H3l1 3.5-1 3.5h1.5L6 13.5h4.5L8 21h2l5-7.5h5c.8 0 1.5-.7 1.5-1.5z"
        let circle = "M12 3a9 9 0 1 0 0 18a9 9 0 1 0 0-18z"
        var icons: [String: [Part]] = [
            "airplane": [.solid(plane)],
            "clock": [.shape(circle), .cut("M12 7v5l3.5 2")],
            "timer": [.shape("M12 5a8 8 0 1 0 0 16a8 8 0 1 0 0-16z"), .cut("M12 13V9"), .line("M10 2h4M18.5 6.5l1.5-1.5")],
            "hourglass": [.shape("M6 3h12c0 5-4 6-4 9s4 4 4 9H6c0-5 4-6 4-9S6 8 6 3z")],
            "door": [.shape("M6 3h12v18H6z"), .hole("M14.5 11a1.2 1.2 0 1 0 0 2.4a1.2 1.2 0 1 0 0-2.4z"), .line("M3 21h18")],
            "bag": [.shape("M5 8h14l-1 13H6z"), .line("M9 10V6a3 3 0 0 1 6 0v4")],
            "suitcase": [.shape("M3 8h18v12H3z"), .line("M9 8V5h6v3"), .cut("M8 8v12M16 8v12")],
            "suitcase.rolling": [.shape("M7 6h10v13H7z"), .line("M10 6V3h4v3"), .cut("M10 9v7M14 9v7"), .solid("M8 20h2v2H8zM14 20h2v2h-2z")],
            // A car seen from the front: body, windscreen, headlights, wheels below.
            "car": [.shape("M3.5 16.5v-5L6.3 6h11.4l2.8 5.5v5z"), .cut("M5.6 11h12.8"), .hole("M5.8 13.2h2.6v1.5H5.8zM15.6 13.2h2.6v1.5h-2.6z"),
                    .solid("M4.5 16.5h4v2.8h-4zM15.5 16.5h4v2.8h-4z")],
            "bus": [.shape("M5 3h14v15H5z"), .cut("M5 11h14"), .line("M7 18v3M17 18v3"), .hole("M8 14h2v2H8zM14 14h2v2h-2z")],
            "tram": [.shape("M6 5h12v12H6z"), .cut("M6 11h12"), .line("M9 2h6M8 17l-2 4M16 17l2 4"), .hole("M9 13.5h2v1.5H9zM13 13.5h2v1.5h-2z")],
            "box.truck": [.shape("M2 6h12v10H2zM14 9h4l3 3v4h-7z"), .solid("M6 17a2 2 0 1 0 0 .1zM17 17a2 2 0 1 0 0 .1z")],
            "shippingbox": [.shape("M12 3l8 4.5v9L12 21l-8-4.5v-9z"), .cut("M4 7.5l8 4.5 8-4.5M12 12v9M8 5.2l8 4.6")],
            "bicycle": [.line("M5.5 17.5a3.5 3.5 0 1 0 0-.1zM18.5 17.5a3.5 3.5 0 1 0 0-.1zM5.5 17.5L9 9h6l3.5 8.5M9 9l3.5 8.5h-7M8 6h3M15 9l-1-3h2")],
            "figure.walk": [.solid("M13.5 2.5a2 2 0 1 0 0 4a2 2 0 1 0 0-4z"), .line("M12.5 8l-2 6 3 3v5M10.5 14l-3 7M12.5 8l3.5 3 3 1M12 8.5L8 11l-1 3")],
            "figure.run": [.solid("M15 2.5a2 2 0 1 0 0 4a2 2 0 1 0 0-4z"), .line("M13 8l-3 5 4 3-1 6M10 13l-4 2-1 3M13 8l3 3 3.5 .5M13 8l-4-.5-2.5 3")],
            "sportscourt": [.shape("M2.5 6h19v12h-19z"), .cut("M12 6v12M12 9.5a2.5 2.5 0 1 0 0 5a2.5 2.5 0 1 0 0-5zM2.5 9.5h3v5h-3M21.5 9.5h-3v5h3")],
            "soccerball": [.shape(circle), .cut("M12 8.5l3.3 2.4-1.3 3.9h-4l-1.3-3.9zM12 8.5V3.5M15.3 10.9l4.6-1.6M14 14.8l2.8 4M10 14.8l-2.8 4M8.7 10.9L4.1 9.3")],
            "basketball": [.shape(circle), .cut("M3 12h18M12 3v18M5.8 5.6c3.2 3.6 3.2 9.2 0 12.8M18.2 5.6c-3.2 3.6-3.2 9.2 0 12.8")],
            "tennisball": [.shape(circle), .cut("M5.6 5.6c3.5 3.5 3.5 9.3 0 12.8M18.4 5.6c-3.5 3.5-3.5 9.3 0 12.8")],
            "trophy": [.shape("M7 3h10v6a5 5 0 0 1-10 0z"), .line("M7 5H4v2a3 3 0 0 0 3 3M17 5h3v2a3 3 0 0 1-3 3M12 14v4M8 21h8M9 18h6")],
            "flag": [.line("M5 21V3"), .shape("M5 4h13l-2.5 4.5L18 13H5z")],
            "flag.checkered": [.line("M5 21V3M5 4h13v9H5"), .solid("M5 4h3.25v3H5zM11.5 4h3.25v3H11.5zM8.25 7h3.25v3H8.25zM14.75 7H18v3h-3.25zM5 10h3.25v3H5zM11.5 10h3.25v3H11.5z")],
            "checkmark": [.line("M4.5 12.5l5 5L19.5 6.5")],
            "xmark": [.line("M6 6l12 12M18 6L6 18")],
            "exclamationmark": [.line("M12 4v11"), .solid("M12 18.2a1.4 1.4 0 1 0 0 2.8a1.4 1.4 0 1 0 0-2.8z")],
            "exclamationmark.triangle": [.shape("M12 3L2 20.5h20z"), .cut("M12 9.5v5"), .hole("M12 16.6a1.2 1.2 0 1 0 0 2.4a1.2 1.2 0 1 0 0-2.4z")],
            "info": [.line("M12 10.5V19"), .solid("M12 5a1.4 1.4 0 1 0 0 2.8a1.4 1.4 0 1 0 0-2.8z")],
            "bell": [.shape("M6 17v-6a6 6 0 0 1 12 0v6l2 2H4z"), .line("M10 21.5h4")],
            "location": [.shape("M20.5 3.5L3 11l7.5 2.5L13 21z")],
            "mappin": [.shape("M12 22s7-6.8 7-12a7 7 0 0 0-14 0c0 5.2 7 12 7 12z"), .cut("M12 7.5a2.5 2.5 0 1 0 0 5a2.5 2.5 0 1 0 0-5z")],
            "map": [.shape("M3 6l6-2.5 6 2.5 6-2.5v14.5L15 20.5 9 18l-6 2.5z"), .cut("M9 3.5V18M15 6v14.5")],
            "person": [.shape("M12 3.5a4 4 0 1 0 0 8a4 4 0 1 0 0-8z"), .shape("M4 21c0-4.4 3.6-7 8-7s8 2.6 8 7z")],
            "star": [.shape("M12 2.8l2.8 5.8 6.3.9-4.6 4.4 1.1 6.3L12 17.2l-5.6 3 1.1-6.3-4.6-4.4 6.3-.9z")],
            "heart": [.shape("M12 20.5S3.5 15.3 3.5 9A4.5 4.5 0 0 1 12 6.6 4.5 4.5 0 0 1 20.5 9c0 6.3-8.5 11.5-8.5 11.5z")],
            "bolt": [.shape("M13.5 2L4.5 13.5h7L10.5 22l9-11.5h-7z")],
            "house": [.line("M2.5 11.5L12 3l9.5 8.5"), .shape("M5 10v11h14V10L12 4z")],
            "cart": [.line("M2.5 4h2.5l2.5 11h11L21 7.5H6"), .solid("M9 18a1.5 1.5 0 1 0 0 3a1.5 1.5 0 1 0 0-3zM17 18a1.5 1.5 0 1 0 0 3a1.5 1.5 0 1 0 0-3z")],
            "fork.knife": [.line("M7 3v18M4.5 3v5a2.5 2.5 0 0 0 5 0V3M17 21V3c-2.5 1.5-3.5 4-3.5 8h3.5")],
            "cup.and.saucer": [.shape("M5 7h11v5a5 5 0 0 1-5 5h-1a5 5 0 0 1-5-5z"), .line("M16 8.5h1.5a2.5 2.5 0 0 1 0 5H15.5M3 20.5h16")],
            "calendar": [.shape("M3.5 5h17v15.5h-17z"), .cut("M3.5 9.5h17"), .line("M8 3v4M16 3v4")],
            "play": [.shape("M7 4l13 8-13 8z")],
            "pause": [.shape("M6 4h4v16H6zM14 4h4v16h-4z")],
            "stop": [.shape("M5 5h14v14H5z")],
            "music.note": [.line("M9 18V5l10-2v13"), .solid("M6.5 15.5a2.5 2.5 0 1 0 0 5a2.5 2.5 0 1 0 0-5zM16.5 13.5a2.5 2.5 0 1 0 0 5a2.5 2.5 0 1 0 0-5z")],
            "arrow.right": [.line("M4 12h16M14 6l6 6-6 6")],
            "arrow.left": [.line("M20 12H4M10 6l-6 6 6 6")],
            "arrow.up": [.line("M12 20V4M6 10l6-6 6 6")],
            "arrow.down": [.line("M12 4v16M6 14l6 6 6-6")],
            "sun.max": [.shape("M12 7.5a4.5 4.5 0 1 0 0 9a4.5 4.5 0 1 0 0-9z"),
                        .line("M12 2v2.5M12 19.5V22M2 12h2.5M19.5 12H22M4.9 4.9l1.8 1.8M17.3 17.3l1.8 1.8M4.9 19.1l1.8-1.8M17.3 6.7l1.8-1.8")],
            "moon": [.shape("M20 14.5A8.5 8.5 0 0 1 9.5 4a8.5 8.5 0 1 0 10.5 10.5z")],
            "cloud": [.shape("M7 19h10.5a4.5 4.5 0 0 0 .5-9 6 6 0 0 0-11.5 1.5A3.8 3.8 0 0 0 7 19z")],
            "circle": [.shape(circle)],
            "square": [.shape("M4 4h16v16H4z")],
            "plus": [.line("M12 5v14M5 12h14")],
            "minus": [.line("M5 12h14")],
        ]
        // Chevrons, media, status: names Voltra's examples use.
        for (name, d) in [("chevron.right", "M9 4.5l7.5 7.5-7.5 7.5"), ("chevron.left", "M15 4.5L7.5 12l7.5 7.5"),
                          ("chevron.up", "M4.5 15.5L12 8l7.5 7.5"), ("chevron.down", "M4.5 8.5L12 16l7.5-7.5"),
                          ("arrow.up.right", "M6 18L18 6M9 6h9v9"), ("arrow.up.left", "M18 18L6 6M15 6H6v9"),
                          ("arrow.down.right", "M6 6l12 12M18 9v9H9"), ("arrow.down.left", "M18 6L6 18M6 9v9h9")] {
            icons[name] = [.line(d)]
        }
        icons["forward"] = [.shape("M2.5 6l9 6-9 6zM12 6l9 6-9 6z")]
        icons["backward"] = [.shape("M21.5 6l-9 6 9 6zM12 6l-9 6 9 6z")]
        icons["photo"] = [.shape("M3 5h18v14H3z"), .cut("M3 16.5l5-5 4 4 3-3 6 6"), .hole("M15.5 7.5a1.6 1.6 0 1 0 0 3.2a1.6 1.6 0 1 0 0-3.2z")]
        icons["wifi"] = [.line("M2.5 9.5a13.5 13.5 0 0 1 19 0M5.6 12.8a9 9 0 0 1 12.8 0M8.7 16a4.6 4.6 0 0 1 6.6 0"),
                         .solid("M12 18a1.6 1.6 0 1 0 0 3.2a1.6 1.6 0 1 0 0-3.2z")]
        let battery: [Symbols.Part] = [.line("M2.5 7.5h16.5v9H2.5z"), .solid("M20.5 10.3h1.8v3.4h-1.8z")]
        icons["battery"] = battery
        for (level, width) in [("100", 14.5), ("75", 10.9), ("50", 7.3), ("25", 3.6), ("0", 0.0)] {
            icons["battery.\(level)"] = battery + (width > 0 ? [.solid("M3.5 8.5h\(width)v7H3.5z")] : [])
        }
        // Pointing north, as a compass needle.
        icons["location.north"] = [.shape("M12 2.5l6.5 18L12 16.5l-6.5 4z")]
        // A plane taking off or landing: tilted, over the ground.
        icons["airplane.departure"] = [.solid(plane).rotated(-28), .line("M3 21.5h18")]
        icons["airplane.arrival"] = [.solid(plane).rotated(28), .line("M3 21.5h18")]
        return icons
    }()

    /// Other SF names drawn as one of the icons above.
    static let aliases: [String: String] = [
        "gate": "door", "takeoutbag.and.cup.and.straw": "bag", "handbag": "bag", "cart.badge.plus": "cart",
        "train.side.front.car": "tram", "tram.fill.tunnel": "tram", "shippingbox.and.arrow.backward": "shippingbox",
        "box": "shippingbox", "archivebox": "shippingbox", "shippingbox.circle": "shippingbox", "truck.box": "box.truck",
        "figure.walk.departure": "figure.walk", "figure.walk.arrival": "figure.walk", "figure.stand": "person",
        "football": "soccerball", "volleyball": "soccerball", "baseball": "tennisball", "soccerball.inverse": "soccerball",
        "mappin.and.ellipse": "mappin", "person.2": "person", "person.crop.circle": "person",
        "exclamationmark.octagon": "exclamationmark.triangle", "checkmark.seal": "checkmark", "bell.badge": "bell",
        "clock.arrow.circlepath": "clock", "stopwatch": "timer", "bolt.car": "bolt", "house.lodge": "house",
        "arrow.forward": "arrow.right", "arrow.backward": "arrow.left", "goforward": "forward", "gobackward": "backward",
        "wifi.slash": "wifi", "photo.on.rectangle": "photo", "battery.100percent": "battery.100", "battery.75percent": "battery.75",
        "battery.50percent": "battery.50", "battery.25percent": "battery.25", "battery.0percent": "battery.0", "sun.min": "sun.max", "moon.stars": "moon",
        "cloud.rain": "cloud", "cloud.sun": "cloud", "medal": "trophy", "figure.outdoor.cycle": "bicycle",
    ]

    /// The name of the icon that stands for an SF name (`heart` for `heart.fill`), nil when none does or
    /// when it is drawn inside an enclosing circle or square.
    static func key(_ name: String) -> String? {
        var components = name.split(separator: ".").map(String.init)
        if components.last == "fill" { components.removeLast() }
        if components.count > 1, let last = components.last, ["circle", "square"].contains(last) { return nil }
        while !components.isEmpty {
            let key = components.joined(separator: ".")
            let resolved = aliases[key] ?? key
            if icons[resolved] != nil { return resolved }
            components.removeLast()
        }
        return nil
    }

    /// The icon parts for an SF name, whether it is the `.fill` variant, and the enclosing shape
    /// (`circle`, `square`) of names like `checkmark.circle.fill`; nil when no icon stands for it.
    static func resolve(_ name: String) -> (parts: [Part], filled: Bool, enclosure: String?)? {
        var components = name.split(separator: ".").map(String.init)
        let filled = components.last == "fill"
        if filled { components.removeLast() }
        var enclosure: String?
        if components.count > 1, let last = components.last, ["circle", "square"].contains(last) {
            enclosure = last
            components.removeLast()
        }
        // The longest known prefix of the name: "door.left.hand.open" draws as "door".
        while !components.isEmpty {
            let key = components.joined(separator: ".")
            if let parts = icons[aliases[key] ?? key] { return (parts, filled, enclosure) }
            components.removeLast()
        }
        return nil
    }
}

extension Symbols.Part {
    /// The part turned by `degrees` about the grid's centre.
    func rotated(_ degrees: Double) -> Symbols.Part {
        let transform = "\u{1}rotate(\(Int(degrees)) 12 12)"
        switch self {
        case .line(let d): return .line(d + transform)
        case .shape(let d): return .shape(d + transform)
        case .solid(let d): return .solid(d + transform)
        case .cut(let d): return .cut(d + transform)
        case .hole(let d): return .hole(d + transform)
        }
    }

    /// Whether the `.fill` variant cuts the part out of the shapes instead of drawing it.
    var isCut: Bool {
        switch self {
        case .cut, .hole: true
        default: false
        }
    }

    /// The SVG `<path>` of the part; in a filled symbol closed shapes are filled. `ink` is the
    /// colour (`currentColor`, or black and white in a mask).
    func svg(filled: Bool, ink: String = "currentColor") -> String {
        let (d, fill): (String, Bool) = switch self {
        case .line(let d), .cut(let d): (d, false)
        case .shape(let d): (d, filled)
        case .solid(let d), .hole(let d): (d, true)
        }
        let pieces = d.split(separator: "\u{1}", maxSplits: 1)
        let transform = pieces.count > 1 ? " transform=\"\(pieces[1])\"" : ""
        let paint = fill ? " fill=\"\(ink)\"" : ink == "currentColor" ? "" : " stroke=\"\(ink)\""
        return "<path d=\"\(pieces[0])\"\(paint)\(transform)/>"
    }
}
