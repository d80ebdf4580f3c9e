import LivelineCore
@testable import LivelineUI

/// The verified examples of the wire-format notes (§1.8) and the layouts that produce them.
enum SpecVectors {
    static let helloJSON = #"{"v":1,"ls":{"t":0,"c":"Hello, world!"}}"#
    static let helloBase64 = "ixOAeyJ2IjoxLCJscyI6eyJ0IjowLCJjIjoiSGVsbG8sIHdvcmxkISJ9fQM="
    static let helloForm = #"{"lockScreen": {"type": "Text", "children": "Hello, world!"}}"#

    static let rideJSON = ##"{"v":1,"ls":{"t":11,"c":[{"t":4,"p":{"n":"car.fill","typ":"hierarchical","sc":"large","tc":"#38BDF8"}},{"t":0,"c":"Driver arrived","p":{"s":0}},{"t":0,"c":"Ready for pickup","p":{"s":1}}],"p":{"s":2}},"s":[{"c":"#F8FAFC","fs":18,"fw":"600"},{"c":"#94A3B8","fs":12,"mt":8},{"pad":16,"br":18,"bg":"#101828"}]}"##
    static let rideForm = """
        {"lockScreen": {"type": "VStack", "props": {"style": {"padding": 16, "borderRadius": 18, "backgroundColor": "#101828"}},
          "children": [
            {"type": "Symbol", "props": {"name": "car.fill", "type": "hierarchical", "scale": "large", "tintColor": "#38BDF8"}},
            {"type": "Text", "props": {"style": {"color": "#F8FAFC", "fontSize": 18, "fontWeight": "600"}}, "children": "Driver arrived"},
            {"type": "Text", "props": {"style": {"color": "#94A3B8", "fontSize": 12, "marginTop": 8}}, "children": "Ready for pickup"}
          ]}}
        """

    static let orderJSON = ##"{"v":1,"ls":{"t":12,"c":[{"$r":0},{"t":0,"c":"Order #42","p":{"s":0}}]},"isl_cmp_l":{"$r":0},"isl_cmp_t":{"t":0,"c":"Order #42","p":{"s":0}},"isl_min":{"$r":0},"e":[{"t":4,"p":{"n":"star.fill","tc":"#FFD60A"}}],"s":[{"fw":"bold"}]}"##

    /// Example 3 uses one star element object in three places and one Text object in two.
    static var orderLayout: UILayout {
        let star = UIElement(.symbol, props: [UIProp("name", .value("star.fill")), UIProp("tintColor", .value("#FFD60A"))])
        let title = UIElement(.text, props: [UIProp("style", .style(UIStyle(["fontWeight": "bold"])))], children: .text("Order #42"))
        return UILayout(regions: [
            .lockScreen: .element(UIElement(.hStack, children: .list([star, title]))),
            .islandCompactLeading: .element(star),
            .islandCompactTrailing: .element(title),
            .islandMinimal: .element(star),
        ])
    }

    static var all: [(name: String, json: String, layout: UILayout)] {
        [
            ("hello", helloJSON, try! LayoutForm.parse(Array(helloForm.utf8))),
            ("ride", rideJSON, try! LayoutForm.parse(Array(rideForm.utf8))),
            ("order", orderJSON, orderLayout),
        ]
    }
}
