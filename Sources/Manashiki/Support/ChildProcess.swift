import Foundation
import ManashikiCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
#if canImport(CManashikiShims)
import CManashikiShims
#endif

/// A child process, with the part of `Foundation.Process`'s interface this package uses.
///
/// On Linux it spawns through `posix_spawn` directly: `Foundation.Process.run()` there can crash
/// while it scans `/proc/self/fd` (swift-corelibs-foundation #5472, fixed after Swift 6.3.1),
/// which made a suite that starts hundreds of processes crash about one run in five. The child
/// inherits no descriptor but 0, 1 and 2, and every signal disposition is reset. On Apple
/// platforms it is `Foundation.Process`.
package final class ChildProcess: @unchecked Sendable {
    /// How the process ended.
    package enum TerminationReason: Sendable { case exit, uncaughtSignal }

    /// The program to run.
    package var executableURL: URL?
    /// Its arguments (without argv[0]).
    package var arguments: [String] = []
    /// Its whole environment; nil inherits this process's.
    package var environment: [String: String]?
    /// Where it starts; nil is this process's current directory.
    package var currentDirectoryURL: URL?
    /// Standard input: a `Pipe` or a `FileHandle`; nil is /dev/null.
    package var standardInput: Any?
    /// Standard output: a `Pipe` or a `FileHandle`; nil is /dev/null.
    package var standardOutput: Any?
    /// Standard error: a `Pipe` or a `FileHandle`; nil is /dev/null.
    package var standardError: Any?

    private let state = Locked<(pid: pid_t, status: Int32?, reason: TerminationReason)>((0, nil, .exit))
    #if !canImport(CManashikiShims)
    private var process: Process?
    #endif

    package init() {}

    /// The child's pid (0 before `run()`).
    package var processIdentifier: Int32 { state.current.pid }

    /// Starts the child.
    /// - Throws: `POSIXError` when it cannot be started.
    package func run() throws {
        guard let executableURL else { throw POSIXError(.ENOENT) }
        #if canImport(CManashikiShims)
        let devNull = open("/dev/null", O_RDWR | O_CLOEXEC)
        defer { close(devNull) }
        func readFD(_ io: Any?) -> Int32 {
            if let pipe = io as? Pipe { return pipe.fileHandleForReading.fileDescriptor }
            if let handle = io as? FileHandle, handle !== FileHandle.nullDevice, handle.fileDescriptor >= 0 { return handle.fileDescriptor }
            return devNull
        }
        func writeFD(_ io: Any?) -> Int32 {
            if let pipe = io as? Pipe { return pipe.fileHandleForWriting.fileDescriptor }
            if let handle = io as? FileHandle, handle !== FileHandle.nullDevice, handle.fileDescriptor >= 0 { return handle.fileDescriptor }
            return devNull
        }
        let argv = ([executableURL.path] + arguments).map { strdup($0) } + [nil]
        let env = (environment ?? ProcessInfo.processInfo.environment).map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + env).forEach { free($0) } }
        var pid: pid_t = 0
        let rc = argv.withUnsafeBufferPointer { a in
            env.withUnsafeBufferPointer { e in
                withOptionalCString(currentDirectoryURL?.path) { cwd in
                    mk_spawn(executableURL.path, a.baseAddress, e.baseAddress, cwd,
                             readFD(standardInput), writeFD(standardOutput), writeFD(standardError), &pid)
                }
            }
        }
        guard rc == 0 else { throw POSIXError(POSIXErrorCode(rawValue: rc) ?? .EIO) }
        state.withLock { $0.pid = pid }
        // The child has its copies: close ours, or reading the pipes would never see their end.
        for io in [standardOutput, standardError] { if let pipe = io as? Pipe { try? pipe.fileHandleForWriting.close() } }
        if let pipe = standardInput as? Pipe { try? pipe.fileHandleForReading.close() }
        #else
        let p = Process()
        p.executableURL = executableURL
        p.arguments = arguments
        if let environment { p.environment = environment }
        if let currentDirectoryURL { p.currentDirectoryURL = currentDirectoryURL }
        p.standardInput = standardInput ?? FileHandle.nullDevice
        p.standardOutput = standardOutput ?? FileHandle.nullDevice
        p.standardError = standardError ?? FileHandle.nullDevice
        try p.run()
        process = p
        state.withLock { $0.pid = p.processIdentifier }
        #endif
    }

    /// Whether the child has not exited yet (reaps it when it has).
    package var isRunning: Bool {
        #if canImport(CManashikiShims)
        return reap(blocking: false) == nil
        #else
        return process?.isRunning ?? false
        #endif
    }

    /// Waits for the child to exit.
    package func waitUntilExit() {
        #if canImport(CManashikiShims)
        _ = reap(blocking: true)
        #else
        process?.waitUntilExit()
        #endif
    }

    /// The exit status, or the signal number when `terminationReason` is `.uncaughtSignal`.
    package var terminationStatus: Int32 {
        #if canImport(CManashikiShims)
        return reap(blocking: false) ?? 0
        #else
        return process?.terminationStatus ?? 0
        #endif
    }

    /// Whether it exited or was killed by a signal.
    package var terminationReason: TerminationReason {
        #if canImport(CManashikiShims)
        _ = reap(blocking: false)
        return state.current.reason
        #else
        return process?.terminationReason == .uncaughtSignal ? .uncaughtSignal : .exit
        #endif
    }

    /// Sends SIGTERM.
    package func terminate() {
        let pid = processIdentifier
        if pid > 0 { kill(pid, SIGTERM) }
    }

    #if canImport(CManashikiShims)
    /// The status once the child has been reaped; waits for it when `blocking`.
    private func reap(blocking: Bool) -> Int32? {
        if let status = state.current.status { return status }
        let pid = processIdentifier
        guard pid > 0 else { return nil }
        var raw: Int32 = 0
        while true {
            let r = waitpid(pid, &raw, blocking ? 0 : WNOHANG)
            if r == 0 { return nil }
            if r < 0 {
                if errno == EINTR { continue }
                return state.current.status // reaped elsewhere
            }
            break
        }
        let signalled = (raw & 0x7f) != 0 && (raw & 0x7f) != 0x7f
        let status = signalled ? raw & 0x7f : (raw >> 8) & 0xff
        state.withLock { s in
            s.status = status
            s.reason = signalled ? .uncaughtSignal : .exit
        }
        return status
    }
    #endif
}

private func withOptionalCString<R>(_ s: String?, _ body: (UnsafePointer<CChar>?) -> R) -> R {
    guard let s else { return body(nil) }
    return s.withCString { body($0) }
}
