/// How large an SF Symbol draws at a point size, so a stand-in takes the room the symbol takes on
/// the device: the ink's width and height and the margins beside it, as fractions of the point size
/// (`.font(.system(size:))`, which is how Voltra sizes a `Symbol`), at the medium image scale and
/// regular weight.
///
/// Measured in Voltra's SwiftUI snapshots of its example Live Activities (364 × 160 pt at 3x,
/// callstackincubator/voltra @be4e2af, `example/__tests__/ios/__image_snapshots__/ios/`): the ink
/// box of each symbol where its colour covers half a pixel or more, and the margins from the
/// neighbours a stack's known spacing puts beside it. Every symbol there is drawn at regular weight,
/// so weight changes the stand-in's stroke only; names not measured use `standard`. The values are
/// our own measurements of what the device drew; VoltraSnapshotTests holds the boxes they come from.
struct SymbolMetrics: Sendable {
    /// The ink's width and height, in multiples of the point size.
    var inkWidth: Double
    var inkHeight: Double
    /// The empty room left and right of the ink inside the symbol's frame, in multiples of the point size.
    var leading: Double
    var trailing: Double
    /// The stand-in's ink on its 24-point grid, stroke included (x, y, width, height): the part of
    /// the drawing stretched over the device's ink box.
    var grid: (x: Double, y: Double, width: Double, height: Double)

    /// Above and below the ink, in multiples of the point size (not measurable in the snapshots,
    /// where text rows set the heights; SF Symbols' frames are a little taller than their ink).
    static let vertical = 0.06

    /// A symbol not measured: ink about nine tenths of the point size, the stand-in's grid less its margin.
    static let standard = SymbolMetrics(inkWidth: 0.92, inkHeight: 0.92, leading: 0.08, trailing: 0.08, grid: (2, 2, 20, 20))

    /// Measured symbols, by stand-in name (the `.fill` variants share their outline's box).
    static let measured: [String: SymbolMetrics] = {
        // A stand-in's grid box from its path's bounds (Chromium's getBBox) and the default stroke of 1.9.
        func grid(_ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double) -> (Double, Double, Double, Double) {
            (x0 - 0.95, y0 - 0.95, x1 - x0 + 1.9, y1 - y0 + 1.9)
        }
        return [
            // heart.fill at 32 pt: 31.0 × 28.67 (liquid-glass); at 24 pt: 23.33 × 21.67 (workout-tracker).
            "heart": SymbolMetrics(inkWidth: 0.970, inkHeight: 0.899, leading: 0.08, trailing: 0.08, grid: grid(3.48, 4.13, 20.52, 20.5)),
            // timer at 24 pt: 24.0 × 24.0, 2.0 from its frame's leading edge (workout-tracker, 16 pt padding).
            "timer": SymbolMetrics(inkWidth: 1.0, inkHeight: 1.0, leading: 0.083, trailing: 0.083, grid: grid(4, 2, 20, 21)),
            // circle.fill at 3 pt: 3.0 × 3.0, dots 4.67 apart in a stack spaced 4 (flight-tracker).
            "circle": SymbolMetrics(inkWidth: 1.0, inkHeight: 1.0, leading: 0.06, trailing: 0.06, grid: grid(3, 3, 21, 21)),
            // airplane at 16 pt: 17.67 × 16.0 (at 14 pt: 15.33 × 14.0), 2.0 after its frame's leading edge
            // (1.67 at 14 pt), 4.33 before the next dot in a stack spaced 4 (flight-tracker).
            "airplane": SymbolMetrics(inkWidth: 1.098, inkHeight: 1.0, leading: 0.12, trailing: 0.01, grid: grid(3, 3, 21.5, 21)),
            // arrow.up.right at 14 pt: 10.33 × 10.0, 1.67 after the 10-pt padding of its badge (flight-tracker).
            "arrow.up.right": SymbolMetrics(inkWidth: 0.738, inkHeight: 0.714, leading: 0.12, trailing: 0.12, grid: grid(6, 6, 18, 18)),
            // forward.fill, backward.fill and pause.fill at 24 pt, large scale (×1.25): 40.33 × 22.67 and
            // 17.67 × 24.67, the inks 16 apart in a stack spaced 8 (music-player).
            "forward": SymbolMetrics(inkWidth: 1.344, inkHeight: 0.756, leading: 0.133, trailing: 0.133, grid: grid(2.5, 6, 21, 18)),
            "backward": SymbolMetrics(inkWidth: 1.344, inkHeight: 0.756, leading: 0.133, trailing: 0.133, grid: grid(3, 6, 21.5, 18)),
            // location.north.fill at 28 pt turned 120° (compass): its ink spans 29.67 × 24.0; the unturned arrow
            // whose outline is the stand-in's and which turned spans that box is 0.85 × 0.98 of the size.
            "location.north": SymbolMetrics(inkWidth: 0.85, inkHeight: 0.98, leading: 0.08, trailing: 0.08, grid: grid(5.5, 2.5, 18.5, 20.5)),
            "pause": SymbolMetrics(inkWidth: 0.589, inkHeight: 0.822, leading: 0.133, trailing: 0.133, grid: grid(6, 4, 18, 20)),
        ]
    }()

    /// The metrics for an SF name (its stand-in's, the `.fill` and enclosed variants included).
    static func of(_ name: String) -> SymbolMetrics {
        guard let key = Symbols.key(name) else { return standard }
        return measured[key] ?? standard
    }

    /// The frame and ink of a symbol of `name` drawn at `size` points (already scaled for the image scale).
    static func box(_ name: String, size: Double) -> (width: Double, height: Double, ink: (x: Double, y: Double, width: Double, height: Double)) {
        let m = of(name)
        let inkWidth = m.inkWidth * size, inkHeight = m.inkHeight * size
        let width = inkWidth + (m.leading + m.trailing) * size, height = inkHeight + 2 * vertical * size
        return (round(width), round(height), (round(m.leading * size), round(vertical * size), round(inkWidth), round(inkHeight)))
    }

    private static func round(_ v: Double) -> Double { (v * 100).rounded() / 100 }
}
