#if os(Linux)
import Foundation
import Glibc
import CManashikiSpawn
import ManashikiCore

/// Linux: `posix_spawn` through `mk_spawn` (closes every descriptor above 2 in the child,
/// resets signal dispositions), reaped with `wait4` so the child's peak RSS is known.
final class SpawnBackend: @unchecked Sendable {
    private struct State {
        var pid: pid_t = 0
        var status: Int32?
        var reason: ChildProcess.TerminationReason = .exit
        var usage: ChildProcess.ResourceUsage?
    }
    private let state = Locked(State())

    private func withState<R>(_ body: (inout State) -> R) -> R { state.withLock(body) }

    var processIdentifier: Int32 { withState { $0.pid } }

    func start(_ executable: URL, arguments: [String], environment: [String: String]?, currentDirectory: URL?,
               input: Any?, output: Any?, error: Any?) throws {
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
        let argv = ([executable.path] + arguments).map { strdup($0) } + [nil]
        let env = (environment ?? ProcessInfo.processInfo.environment).map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + env).forEach { free($0) } }
        var pid: pid_t = 0
        let rc = argv.withUnsafeBufferPointer { a in
            env.withUnsafeBufferPointer { e in
                withOptionalCString(currentDirectory?.path) { cwd in
                    mk_spawn(executable.path, a.baseAddress, e.baseAddress, cwd,
                             readFD(input), writeFD(output), writeFD(error), &pid)
                }
            }
        }
        guard rc == 0 else { throw POSIXError(POSIXErrorCode(rawValue: rc) ?? .EIO) }
        withState { $0.pid = pid }
        // The child has its copies: close ours, or reading the pipes would never see their end.
        for io in [output, error] { if let pipe = io as? Pipe { try? pipe.fileHandleForWriting.close() } }
        if let pipe = input as? Pipe { try? pipe.fileHandleForReading.close() }
    }

    var isRunning: Bool { reap(blocking: false) == nil }
    func waitUntilExit() { _ = reap(blocking: true) }
    var terminationStatus: Int32 { reap(blocking: false) ?? 0 }
    var terminationReason: ChildProcess.TerminationReason {
        _ = reap(blocking: false)
        return withState { $0.reason }
    }
    var resourceUsage: ChildProcess.ResourceUsage? {
        _ = reap(blocking: false)
        return withState { $0.usage }
    }

    /// The status once the child has been reaped; waits for it when `blocking`.
    private func reap(blocking: Bool) -> Int32? {
        if let status = withState({ $0.status }) { return status }
        let pid = processIdentifier
        guard pid > 0 else { return nil }
        var raw: Int32 = 0
        var usage = rusage()
        while true {
            let r = wait4(pid, &raw, blocking ? 0 : WNOHANG, &usage)
            if r == 0 { return nil }
            if r < 0 {
                if errno == EINTR { continue }
                return withState { $0.status } // reaped elsewhere
            }
            break
        }
        let signalled = (raw & 0x7f) != 0 && (raw & 0x7f) != 0x7f
        let status = signalled ? raw & 0x7f : (raw >> 8) & 0xff
        withState { s in
            s.status = status
            s.reason = signalled ? .uncaughtSignal : .exit
            let cpu = Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
            s.usage = ChildProcess.ResourceUsage(maxResidentKiB: usage.ru_maxrss, cpuSeconds: cpu)
        }
        return status
    }
}

private func withOptionalCString<R>(_ s: String?, _ body: (UnsafePointer<CChar>?) -> R) -> R {
    guard let s else { return body(nil) }
    return s.withCString { body($0) }
}

#elseif os(macOS)
import Foundation
import ManashikiCore

/// macOS: `Foundation.Process` (the corelibs crash that rules it out on Linux does not exist in
/// Apple's Foundation). `Process` is macOS-only: on iOS, tvOS, watchOS and visionOS this file
/// compiles to nothing and `ChildProcess` does not exist.
final class SpawnBackend: @unchecked Sendable {
    private let process = Locked<Process?>(nil)

    private var current: Process? { process.current }

    var processIdentifier: Int32 { current?.processIdentifier ?? 0 }

    func start(_ executable: URL, arguments: [String], environment: [String: String]?, currentDirectory: URL?,
               input: Any?, output: Any?, error: Any?) throws {
        let p = Process()
        p.executableURL = executable
        p.arguments = arguments
        if let environment { p.environment = environment }
        if let currentDirectory { p.currentDirectoryURL = currentDirectory }
        p.standardInput = input ?? FileHandle.nullDevice
        p.standardOutput = output ?? FileHandle.nullDevice
        p.standardError = error ?? FileHandle.nullDevice
        // `Process.run()` throws Cocoa errors (NSFileNoSuchFileError…), not the POSIXError
        // `ChildProcess.run()` promises.
        do { try p.run() } catch { throw POSIXError(POSIXErrorCode(rawValue: SpawnFailure.errno(of: error)) ?? .EIO) }
        process.withLock { $0 = p }
    }

    var isRunning: Bool { current?.isRunning ?? false }
    func waitUntilExit() { current?.waitUntilExit() }
    var terminationStatus: Int32 { current?.terminationStatus ?? 0 }
    var terminationReason: ChildProcess.TerminationReason {
        current?.terminationReason == .uncaughtSignal ? .uncaughtSignal : .exit
    }
    var resourceUsage: ChildProcess.ResourceUsage? { nil }
}
#endif

#if os(Linux) || os(macOS)
import Foundation

/// The errno behind a failed start, whichever form the backend reported it in: a
/// `POSIXError` (Linux's `posix_spawn`), or the `NSError` Apple's `Process.run()` throws (the
/// POSIX error itself, a Cocoa file error with it as `NSUnderlyingErrorKey`, or a bare Cocoa
/// file error). Platform-free, so Linux tests the macOS mapping.
enum SpawnFailure {
    static func errno(of error: any Error) -> Int32 {
        if let posix = error as? POSIXError { return posix.code.rawValue }
        let ns = error as NSError
        if ns.domain == NSPOSIXErrorDomain { return Int32(ns.code) }
        if let underlying = ns.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return Int32(underlying.code)
        }
        if ns.domain == NSCocoaErrorDomain {
            switch CocoaError.Code(rawValue: ns.code) {
            case .fileNoSuchFile, .fileReadNoSuchFile: return ENOENT
            case .fileReadNoPermission, .fileWriteNoPermission: return EACCES
            default: break
            }
        }
        return EIO
    }
}
#endif
