import Foundation
import FuzzTargets

// libFuzzer's entry point for every target; the target is chosen by FUZZ_TARGET (one binary, one
// link). Built with -parse-as-library: libFuzzer brings `main`.

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
public func fuzzOneInput(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    let bytes = count == 0 ? [] : Array(UnsafeRawBufferPointer(start: start, count: count))
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
