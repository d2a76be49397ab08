#if os(Linux) || os(macOS) // child processes (ManashikiProcess) exist on Linux and macOS only
import Foundation
import ManashikiProcess
import Testing

/// `swift test` runs the portability check too (`.ci/run` also runs it before the tests): every
/// `#if` in Sources/ and Tests/ read as macOS, iOS, Mac Catalyst, tvOS, watchOS, visionOS and
/// Linux would compile it. Its self-test proves it flags known-bad code, so it can fail.
@Suite("Portability check (.ci/portability.py)")
struct PortabilityCheckTests {
    static let root = PackageRoot.url

    /// Runs the script on a thread of its own: blocking the concurrency pool (two threads on a
    /// two-core machine) for seconds would starve every other test's timers. The script needs
    /// about 11 CPU seconds; the timeout only guards against a hang, so it is generous: beside the
    /// rest of the suite on a loaded two-core machine it once took over 120 s of wall time.
    static func python(_ arguments: [String]) async throws -> ProcessCapture.Output {
        guard let python = ChildProcess.executable(named: "python3") else {
            throw POSIXError(.ENOENT)
        }
        let script = root.appendingPathComponent(".ci/portability.py").path
        return try await withCheckedThrowingContinuation { continuation in
            Thread {
                continuation.resume(with: Result {
                    try ProcessCapture.run(python, arguments: [script] + arguments,
                                           environment: ProcessInfo.processInfo.environment, timeout: 900, maxOutput: 1 << 20)
                })
            }.start()
        }
    }

    @Test("the self-test flags every known-bad snippet and no known-good one")
    func selfTest() async throws {
        let result = try await Self.python(["--self-test"])
        let text = String(decoding: result.stdout, as: UTF8.self)
        #expect(result.status == 0, "\(text)")
        #expect(text.contains("portability self-test passed"))
    }

    @Test("the package passes: nothing compiled on a platform uses what does not exist there")
    func package() async throws {
        let result = try await Self.python([Self.root.path])
        let text = String(decoding: result.stdout, as: UTF8.self)
        #expect(result.status == 0, "\(text)")
        #expect(text.contains("portability check passed"))
    }
}
#endif
