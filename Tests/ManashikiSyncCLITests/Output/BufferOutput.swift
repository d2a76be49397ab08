import Foundation
import ManashikiCore
@testable import ManashikiSyncCLI

/// Collects text in memory (for tests).
final class BufferOutput: TextOutput, @unchecked Sendable {
    private let buffer = Locked("")

    /// An empty buffer.
    init() {}

    /// Appends `text`.
    func write(_ text: String) {
        buffer.withLock { $0 += text }
    }

    /// Everything written so far.
    var text: String { buffer.current }

    /// Everything written so far, split into lines (without the trailing empty one).
    var lines: [String] {
        var parts = text.components(separatedBy: "\n")
        if parts.last == "" { parts.removeLast() }
        return parts
    }
}
