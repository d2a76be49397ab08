import Foundation
import ManashikiCore

/// Counts storage downloads in progress and the most seen at once.
final class DownloadGauge: @unchecked Sendable {
    private let state = Locked((open: 0, max: 0, bytes: Int64(0)))

    /// A download started.
    func begin() { state.withLock { $0.open += 1; $0.max = Swift.max($0.max, $0.open) } }
    /// A download ended (completed or not).
    func end() { state.withLock { $0.open -= 1 } }
    /// Downloads in progress.
    var open: Int { state.withLock { $0.open } }
    /// The most downloads seen in progress at once.
    var maximum: Int { state.withLock { $0.max } }
    /// Counts the bytes of an artifact response the storage origin sent (body only).
    func served(_ bytes: Int64) { state.withLock { $0.bytes += bytes } }
    /// Bytes of artifact responses the storage origin has sent since it started (each counted
    /// when it ends).
    var bytesServed: Int64 { state.withLock { $0.bytes } }
    /// Sets the maximum back to the current count.
    func resetMaximum() { state.withLock { $0.max = $0.open } }
}
