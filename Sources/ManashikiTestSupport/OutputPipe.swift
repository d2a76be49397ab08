import Foundation
import ManashikiCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Collects what a child process writes to a pipe, on a plain reader thread.
///
/// `FileHandle.readabilityHandler` is deliberately not used: its dispatch read source can
/// outlive the descriptor on Linux, and libdispatch then crashes in its event loop
/// (`_dispatch_event_loop_drain`) once the number is reused — which took down a test process
/// that starts hundreds of children.
///
/// ```swift
/// let out = OutputPipe()
/// child.standardOutput = out.pipe
/// try child.run()
/// child.waitUntilExit()
/// out.drain()
/// print(out.text)
/// ```
public final class OutputPipe: @unchecked Sendable {
    /// Hand this to the child as its standard output or error.
    public let pipe = Pipe()
    private let data = Locked(Data())
    private let finished = DispatchSemaphore(value: 0)

    /// Starts reading at once; the thread ends at end of file (when every writer has closed).
    public init() {
        let fd = pipe.fileHandleForReading.fileDescriptor
        let thread = Thread { [self] in
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                let n = read(fd, &buffer, buffer.count)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { break }
                data.withLock { $0.append(contentsOf: buffer[0..<n]) }
            }
            finished.signal()
        }
        thread.name = "manashiki.test.output"
        thread.start()
    }

    /// Waits until the writers have closed the pipe (the child exited), so `text` is complete.
    /// Returns false if that did not happen within `timeout` seconds.
    @discardableResult
    public func drain(timeout: Double = 30) -> Bool {
        guard finished.wait(timeout: .now() + timeout) == .success else { return false }
        finished.signal() // later calls return at once
        return true
    }

    /// Everything read so far, as UTF-8.
    public var text: String {
        String(decoding: data.current, as: UTF8.self)
    }

    /// Everything read so far.
    public var bytes: Data { data.current }
}
