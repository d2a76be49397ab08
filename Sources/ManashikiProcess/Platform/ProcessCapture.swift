import Foundation
import ManashikiCore

/// Runs a command to completion and captures its standard output, on every platform: where
/// processes cannot be started (iOS, tvOS, watchOS, visionOS) it throws
/// `ProcessCapture.Failure.unsupported` instead of failing to compile.
package enum ProcessCapture {
    /// What a finished command left.
    package struct Output: Sendable {
        /// The exit status (or the signal number when `signalled`).
        package var status: Int32
        /// Whether a signal ended it.
        package var signalled: Bool
        /// Standard output, at most `maxOutput` bytes.
        package var stdout: Data
        /// Whether it was stopped because it ran longer than the timeout.
        package var timedOut: Bool
    }

    /// Why a command could not be run.
    package enum Failure: Error, Equatable {
        /// This platform starts no processes.
        case unsupported(platform: String)
        /// The program could not be started (errno).
        case cannotStart(code: Int32)
    }

    /// Whether this platform can start processes (Linux and macOS).
    package static var isSupported: Bool {
        #if os(Linux) || os(macOS)
        return true
        #else
        return false
        #endif
    }

    /// Runs `executable` with `arguments` and `environment` (stdin and stderr are /dev/null),
    /// blocking the calling thread; SIGTERM after `timeout` seconds.
    /// - Throws: `Failure`.
    package static func run(_ executable: URL, arguments: [String], environment: [String: String],
                            timeout: TimeInterval, maxOutput: Int) throws -> Output {
        #if os(Linux) || os(macOS)
        let process = ChildProcess()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = environment
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        do { try process.run() } catch {
            throw Failure.cannotStart(code: SpawnFailure.errno(of: error))
        }
        let timedOut = TimeoutFlag()
        let watchdog = DispatchWorkItem {
            guard process.isRunning else { return }
            timedOut.set()
            process.terminate()
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: watchdog)
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        watchdog.cancel()
        return Output(status: process.terminationStatus, signalled: process.terminationReason == .uncaughtSignal,
                      stdout: data.prefix(maxOutput), timedOut: timedOut.isSet)
        #else
        throw Failure.unsupported(platform: OperatingSystem.current.name)
        #endif
    }
}

/// Set once by the watchdog, read after the child has exited.
private final class TimeoutFlag: Sendable {
    private let value = Locked(false)
    func set() { value.withLock { $0 = true } }
    var isSet: Bool { value.current }
}
