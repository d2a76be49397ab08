#if os(Linux) || os(macOS) // child processes (ManashikiProcess) exist on Linux and macOS only
import Foundation
import Testing
@testable import ManashikiProcess
import ManashikiTestSupport

/// Why a child could not start, as an errno, whichever backend failed: Linux's `posix_spawn`
/// (a `POSIXError`) or macOS's `Foundation.Process` (Cocoa errors, built here as macOS throws them).
@Suite("Starting a process: the errno of a failure")
struct SpawnFailureTests {
    @Test("the errors Foundation.Process throws on macOS map to the errno ChildProcess promises")
    func cocoaErrors() {
        let posixUnderneath = NSError(domain: NSCocoaErrorDomain, code: CocoaError.fileReadNoSuchFile.rawValue,
                                      userInfo: [NSUnderlyingErrorKey: NSError(domain: NSPOSIXErrorDomain, code: Int(EACCES))])
        #expect(SpawnFailure.errno(of: posixUnderneath) == EACCES)
        #expect(SpawnFailure.errno(of: NSError(domain: NSCocoaErrorDomain, code: CocoaError.fileNoSuchFile.rawValue)) == ENOENT)
        #expect(SpawnFailure.errno(of: NSError(domain: NSCocoaErrorDomain, code: CocoaError.fileReadNoPermission.rawValue)) == EACCES)
        #expect(SpawnFailure.errno(of: NSError(domain: NSPOSIXErrorDomain, code: Int(ENOEXEC))) == ENOEXEC)
        #expect(SpawnFailure.errno(of: POSIXError(.E2BIG)) == E2BIG)
        // Not "no such file" when nothing says so.
        #expect(SpawnFailure.errno(of: NSError(domain: "other", code: 1)) == EIO)
    }

    @Test("a missing program and one that is not executable are told apart")
    func realFailures() throws {
        let dir = ScratchDirectory()
        let missing = dir.file("no-such-program")
        #expect(throws: ProcessCapture.Failure.cannotStart(code: ENOENT)) {
            _ = try ProcessCapture.run(missing, arguments: [], environment: [:], timeout: 5, maxOutput: 1)
        }
        let plain = dir.file("not-executable")
        try Data("#!/bin/sh\necho hi\n".utf8).write(to: plain)
        #expect(throws: ProcessCapture.Failure.cannotStart(code: EACCES)) {
            _ = try ProcessCapture.run(plain, arguments: [], environment: [:], timeout: 5, maxOutput: 1)
        }
    }
}
#endif
