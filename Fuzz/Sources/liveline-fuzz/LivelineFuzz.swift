import Foundation
import FuzzTargets

import CFuzzer

// One binary for every target (one link); FUZZ_TARGET chooses. Built with -parse-as-library:
// SwiftPM points `main` at `liveline_fuzz_main` on Linux, which runs libFuzzer's driver.

/// The target named by FUZZ_TARGET.
let target: FuzzTarget = {
    let name = getenv("FUZZ_TARGET").map { String(cString: $0) } ?? ""
    guard let target = FuzzTarget.named(name) else {
        fatalError("FUZZ_TARGET must be one of: \(FuzzTarget.all.map(\.name).joined(separator: " ")) (got '\(name)')")
    }
    return target
}()

/// Carries one check's answer out of its task; written before the semaphore is signalled, read
/// after the wait, hence `@unchecked Sendable`.
final class Answer: @unchecked Sendable {
    var problem: String?
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = count == 0 ? [] : Array(UnsafeBufferPointer(start: start, count: count))
    let done = DispatchSemaphore(value: 0)
    let answer = Answer()
    let target = target
    Task.detached {
        answer.problem = await target.check(bytes)
        done.signal()
    }
    done.wait()
    if let problem = answer.problem { fatalError("\(target.name): \(problem)") }
    return 0
}

@_cdecl("liveline_fuzz_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var argc = argc
    var argv = argv
    return LLVMFuzzerRunDriver(&argc, &argv, fuzzOneInput)
}
