import Foundation

/// Polls `condition` up to 200 times, 10 ms apart (a bounded wait for another thread's effect).
func eventually(_ condition: () -> Bool) -> Bool {
    for _ in 0..<200 {
        if condition() { return true }
        usleep(10_000)
    }
    return condition()
}
