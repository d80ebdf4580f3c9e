@testable import LivelineHTTP2
import Testing

@Suite("TimerHeap")
struct TimerHeapTests {
    @Test("timers come out in deadline order, only when due, and cancelled ones never")
    func order() {
        var heap = TimerHeap()
        var fired: [Int] = []
        let deadlines: [UInt64] = [50, 10, 40, 20, 30, 10]
        var ids: [UInt64] = []
        for (index, deadline) in deadlines.enumerated() {
            ids.append(heap.add(deadline: deadline) { fired.append(index) })
        }
        heap.cancel(ids[2])
        #expect(heap.nextDeadline == 10)
        while let work = heap.popDue(now: 25) { work() }
        #expect(fired.sorted() == [1, 3, 5])
        #expect(fired.last == 3)
        #expect(heap.nextDeadline == 30)
        while let work = heap.popDue(now: 100) { work() }
        #expect(fired.suffix(2) == [4, 0])
        #expect(heap.nextDeadline == nil)
    }
}
