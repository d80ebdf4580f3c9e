@testable import LivelineHTTPServer
import Testing

@Suite("RequestLifecycle: who suspends, who resumes, which answers are dropped")
struct RequestLifecycleTests {
    @Test("a handler that answers before the access handler returns is queued at once, without a suspend")
    func answeredInline() {
        var lifecycle = RequestLifecycle()
        lifecycle.start()
        #expect(lifecycle.answer(status: 200) == .stored)
        #expect(lifecycle.leaveAccessHandler() == .respond)
        #expect(lifecycle.phase == .responded)
        #expect(lifecycle.answer(status: 500) == .dropped)
        #expect(lifecycle.close() == true)
    }

    @Test("a handler that suspends: the connection is suspended, the answer resumes it, the next access-handler call takes it")
    func answeredAfterSuspend() {
        var lifecycle = RequestLifecycle()
        lifecycle.start()
        #expect(lifecycle.leaveAccessHandler() == .suspend)
        #expect(lifecycle.phase == .runningSuspended)
        #expect(lifecycle.answer(status: 201) == .storedResume)
        #expect(lifecycle.phase == .answered(status: 201))
        #expect(lifecycle.takeAnswer() == true)
        #expect(lifecycle.takeAnswer() == false)
        #expect(lifecycle.close() == true)
    }

    @Test("stop() answering in a handler's place wins; the handler's own answer is dropped without a second resume")
    func replacedAnswer() {
        var lifecycle = RequestLifecycle()
        lifecycle.start()
        _ = lifecycle.leaveAccessHandler()
        #expect(lifecycle.answer(status: 503) == .storedResume)
        #expect(lifecycle.answer(status: 200) == .dropped)
        #expect(lifecycle.phase == .answered(status: 503))
    }

    @Test("after the completion callback every answer is dropped")
    func closedDropsAnswers() {
        var lifecycle = RequestLifecycle()
        lifecycle.start()
        _ = lifecycle.answer(status: 503)
        #expect(lifecycle.close() == true)
        #expect(lifecycle.answer(status: 200) == .dropped)
        #expect(lifecycle.takeAnswer() == false)
    }

    @Test("a request answered directly (413, 503) never runs a handler")
    func direct() {
        var lifecycle = RequestLifecycle()
        lifecycle.respondDirectly()
        #expect(lifecycle.phase == .responded)
        #expect(lifecycle.answer(status: 200) == .dropped)
        #expect(lifecycle.close() == true)
    }

    @Test("closing while suspended is reported (the server resumes every connection before stopping the daemon)")
    func closeWhileSuspended() {
        var lifecycle = RequestLifecycle()
        lifecycle.start()
        _ = lifecycle.leaveAccessHandler()
        #expect(lifecycle.close() == false)
    }
}
