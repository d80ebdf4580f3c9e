// What docs/ui.md's examples take as given.
import Foundation
import LivelineCore

/// When boarding starts (the layout's timer counts down to it).
let boarding = Date(timeIntervalSince1970: 1_764_430_000)

/// The start's alert, which ActivityKit requires.
let alert = Alert(title: "LL 1234", body: "Boarding soon")
