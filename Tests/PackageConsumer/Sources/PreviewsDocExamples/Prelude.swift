// What docs/previews.md's example takes as given: a push's body, what a simulated phone holds,
// and a layout with its decoding warnings.
import LivelineCore
import LivelineUI

let bodyBytes: [UInt8] = []
let attributes: JSONValue? = nil
let state: JSONValue = .object([:])
let layout = UILayout()
let issues: [String] = []
