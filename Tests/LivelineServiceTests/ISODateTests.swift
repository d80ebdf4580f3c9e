import Foundation
@testable import LivelineService
import Testing

/// The API's dates: what `ISODate` accepts and writes. Parsing moved from a new
/// `ISO8601DateFormatter` per call to `Date.ISO8601FormatStyle`; these pin what must not change.
@Suite("ISO 8601 dates of the API")
struct ISODateTests {
    @Test("accepted: Z, offsets, fractions (kept to the millisecond)", arguments: [
        ("2026-12-01T17:45:00Z", 1_796_147_100.0),
        ("2026-12-01T17:45:00+02:00", 1_796_139_900.0),
        ("2026-12-01T17:45:00-05:30", 1_796_166_900.0),
        ("2026-12-01T17:45:00.123Z", 1_796_147_100.123),
        ("2026-12-01T17:45:00.5+01:00", 1_796_143_500.5),
        ("2026-12-01T17:45:00.123456789Z", 1_796_147_100.123),
        ("2024-02-29T00:00:00Z", 1_709_164_800.0),
    ])
    func accepted(text: String, unix: Double) throws {
        let date = try #require(ISODate.parse(text), "\(text) was refused")
        #expect(date.timeIntervalSince1970 == unix, "\(text): \(date.timeIntervalSince1970)")
    }

    @Test("refused: impossible clocks and dates, other shapes", arguments: [
        "2026-12-01T24:00:00Z", "2026-12-01T25:45:00Z", "2026-12-01T17:60:00Z", "2026-12-01T17:45:60Z",
        "2026-13-01T17:45:00Z", "2026-02-30T17:45:00Z", "2025-02-29T00:00:00Z",
        "2026-12-01", "2026-12-01T17:45Z", "2026-12-01 17:45:00Z", "2026-12-01T17:45:00", "1700000000", "",
        "2026-12-01T17:45:00Zjunk", "2026-12-01T1a:45:00Z",
    ])
    func refused(text: String) {
        #expect(ISODate.parse(text) == nil, "\(text) was accepted as \(String(describing: ISODate.parse(text)))")
    }

    @Test("written: whole seconds without a fraction, others to the millisecond; what is written reads back")
    func written() throws {
        #expect(ISODate.string(Date(timeIntervalSince1970: 1_700_000_000)) == "2023-11-14T22:13:20Z")
        #expect(ISODate.string(Date(timeIntervalSince1970: 1_700_000_000.123)) == "2023-11-14T22:13:20.123Z")
        #expect(ISODate.string(Date(timeIntervalSince1970: 1_700_000_000.5)) == "2023-11-14T22:13:20.500Z")
        for t in [0.0, 1_700_000_000, 1_700_000_000.25, 1_796_147_100.123, 4_102_444_800.5] {
            let text = ISODate.string(Date(timeIntervalSince1970: t))
            #expect(ISODate.parse(text)?.timeIntervalSince1970 == t, "\(t) → \(text)")
        }
    }

    @Test("used from many threads at once, the answers stay right")
    func concurrent() async {
        let wrong = await withTaskGroup(of: Int.self) { group in
            for i in 0..<8 {
                group.addTask {
                    var bad = 0
                    for j in 0..<500 {
                        let t = 1_700_000_000.0 + Double(i * 1000 + j) + (j.isMultiple(of: 2) ? 0 : 0.25)
                        if ISODate.parse(ISODate.string(Date(timeIntervalSince1970: t)))?.timeIntervalSince1970 != t { bad += 1 }
                    }
                    return bad
                }
            }
            return await group.reduce(0, +)
        }
        #expect(wrong == 0)
    }
}
