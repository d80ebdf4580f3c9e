// HTTP2Bench: the LivelineHTTP2 client and server beside h2load, nghttpd and nginx in one run.
// Everything runs in HTTP2Benchmark (a nonisolated type): closures called from the event-loop
// thread must not be written at the top level of main.swift (they would be @MainActor).
import Foundation

let code = await HTTP2Benchmark.main(Array(CommandLine.arguments.dropFirst()))
exit(code)
