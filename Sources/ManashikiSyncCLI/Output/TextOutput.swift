import Foundation
import ManashikiCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Where text goes: standard output, standard error, or (in tests) a buffer.
package protocol TextOutput: Sendable {
    /// Writes `text` as is (no newline added).
    func write(_ text: String)
}

/// Writes to a file descriptor (1 or 2), retrying short writes and `EINTR`.
package struct FileDescriptorOutput: TextOutput {
    /// The descriptor.
    package let descriptor: Int32

    /// An output on `descriptor`.
    package init(descriptor: Int32) { self.descriptor = descriptor }

    /// Whether the descriptor is a terminal.
    package var isTerminal: Bool { isatty(descriptor) == 1 }

    /// Writes all of `text`; a closed pipe is ignored (SIGPIPE is ignored by the tool).
    package func write(_ text: String) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeMutableBytes { raw in
                #if canImport(Darwin)
                Darwin.write(descriptor, raw.baseAddress! + offset, raw.count - offset)
                #elseif canImport(Musl)
                Musl.write(descriptor, raw.baseAddress! + offset, raw.count - offset)
                #else
                Glibc.write(descriptor, raw.baseAddress! + offset, raw.count - offset)
                #endif
            }
            if n < 0 { if errno == EINTR { continue }; return }
            offset += n
        }
        bytes.removeAll()
    }
}

/// Replaces known secrets (the API key, session tokens) with `[redacted]` before anything is
/// written: a last line of defence, since no code path is meant to print them.
package final class RedactingOutput: TextOutput, @unchecked Sendable {
    private let secrets = Locked<[String]>([])
    private let base: any TextOutput

    /// Wraps `base`.
    package init(_ base: any TextOutput) { self.base = base }

    /// Adds a secret to hide (ignored when shorter than 8 characters, which would hide words).
    package func hide(_ secret: String) {
        guard secret.count >= 8 else { return }
        secrets.withLock { if !$0.contains(secret) { $0.append(secret) } }
    }

    /// Writes `text` with every secret replaced.
    package func write(_ text: String) {
        let current = secrets.current
        var clean = text
        for secret in current where clean.contains(secret) {
            clean = clean.replacingOccurrences(of: secret, with: "[redacted]")
        }
        base.write(clean)
    }
}
