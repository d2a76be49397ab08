import Foundation

/// A value guarded by a lock, for state shared between threads and tasks. The one lock type of
/// the package (SDK, sync agent, CLI and development registry).
///
/// `Synchronization.Mutex` needs macOS 15 / iOS 18; this works on every platform the package
/// supports.
package final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    package init(_ value: Value) { self.value = value }

    /// Runs `body` with exclusive access to the value.
    @discardableResult
    package func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }

    /// A copy of the current value.
    package var current: Value { withLock { $0 } }
}
