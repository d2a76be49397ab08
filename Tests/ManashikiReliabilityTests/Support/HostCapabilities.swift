#if os(Linux) || os(macOS) // child processes (ManashikiProcess) exist on Linux and macOS only
import Foundation
import ManashikiProcess
import ManashikiTestSupport
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What this machine lets the suite do. Each probe really tries the operation once (a mount,
/// a traced `true`, a switch to `nobody`), so a skip always reflects this machine, and the
/// reason is printed with the skip.
enum HostCapabilities {
    /// Whether `mount -t tmpfs` works here (root with CAP_SYS_ADMIN, not blocked by a sandbox).
    static let canMountTmpfs: Bool = {
        guard geteuid() == 0, tool("mount") != nil else { return false }
        let dir = ScratchDirectory("manashiki-mount-probe")
        guard RunningChild.run(URL(fileURLWithPath: mountPath), ["-t", "tmpfs", "-o", "size=64k", "tmpfs", dir.url.path]).status == 0 else { return false }
        return RunningChild.run(URL(fileURLWithPath: umountPath), [dir.url.path]).status == 0
    }()

    /// Why mounting is unavailable.
    static let mountSkipReason = "mounting a tmpfs is not permitted here (needs root with CAP_SYS_ADMIN outside a restrictive sandbox)"

    /// The system tool `name` in /bin or /usr/bin, if installed.
    static func tool(_ name: String) -> String? { ChildProcess.executable(named: name, path: "/usr/bin:/bin")?.path }

    static var mountPath: String { tool("mount") ?? "/usr/bin/mount" }
    static var umountPath: String { tool("umount") ?? "/usr/bin/umount" }

    /// The strace binary, if installed (tests using it require `.strace`).
    static let strace: String? = Peer.strace.executable?.path

    /// Whether strace can trace a child here (ptrace may be denied in containers).
    static let canStrace: Bool = {
        guard let strace else { return false }
        return RunningChild.run(URL(fileURLWithPath: strace), ["-f", "-e", "trace=none", "-o", "/dev/null", "/bin/true"]).status == 0
    }()

    /// Why strace cannot trace here (it is installed: the test requires `.strace` first).
    static let straceSkipReason = "ptrace is denied here (strace cannot trace a child)"

    /// `setpriv` that can drop to `nobody` (uid 65534), for permission-denied cases: root
    /// bypasses file permissions, so those need an unprivileged process.
    static let setpriv: String? = {
        guard geteuid() == 0 else { return nil }
        guard let path = tool("setpriv") else { return nil }
        let ok = RunningChild.run(URL(fileURLWithPath: path), ["--reuid=65534", "--regid=65534", "--clear-groups", "/bin/true"]).status == 0
        return ok ? path : nil
    }()

    static var nobodySkipReason: String {
        geteuid() != 0 ? "not running as root: permission cases need root to create files nobody may not write"
            : "setpriv is missing or cannot switch to uid 65534 (nobody)"
    }
}

/// A tmpfs mounted for the lifetime of the value (unmounted in `unmount()` or deinit, lazily
/// if busy), at a fresh directory.
final class TmpfsMount: @unchecked Sendable {
    private let mountPoint = ScratchDirectory("manashiki-tmpfs")
    var url: URL { mountPoint.url }
    private var mounted = false

    init(size: String, options: String = "") throws {
        let opts = "size=\(size)" + (options.isEmpty ? "" : ",\(options)")
        let result = RunningChild.run(URL(fileURLWithPath: HostCapabilities.mountPath), ["-t", "tmpfs", "-o", opts, "tmpfs", url.path])
        guard result.status == 0 else { throw POSIXError(.EPERM, userInfo: [NSLocalizedDescriptionKey: result.all]) }
        mounted = true
    }

    /// Remounts read-only (or read-write).
    func remount(readOnly: Bool) -> Bool {
        RunningChild.run(URL(fileURLWithPath: HostCapabilities.mountPath), ["-o", readOnly ? "remount,ro" : "remount,rw", url.path]).status == 0
    }

    func unmount() {
        guard mounted else { return }
        if RunningChild.run(URL(fileURLWithPath: HostCapabilities.umountPath), [url.path]).status != 0 {
            RunningChild.run(URL(fileURLWithPath: HostCapabilities.umountPath), ["-l", url.path])
        }
        mounted = false
        mountPoint.remove()
    }

    deinit { unmount() }
}

/// Another process holding `flock` on a file: `sh` opens it on fd 9, `flock 9` takes the
/// lock on that open file, and `exec sleep` keeps it — so the lock lives exactly as long as
/// the one process this test started (and dies with it on `kill -9`).
final class LockHolder: @unchecked Sendable {
    let running: RunningChild

    init(_ file: URL, in directory: URL) throws {
        running = try CLIProcess.start(["-c", "exec 9>>\"$0\" && flock -n 9 && echo locked && exec sleep 60", file.path],
                                       executable: URL(fileURLWithPath: "/bin/sh"), in: directory)
        let deadline = Date().addingTimeInterval(10)
        while !running.out.text.contains("locked") && running.isRunning && Date() < deadline { usleep(10_000) }
    }

    var holds: Bool { running.isRunning && running.out.text.contains("locked") }

    func kill() { if running.isRunning { running.send(SIGKILL) } }

    func killAndWait() async {
        kill()
        _ = await running.finish(timeout: 5)
    }
}
#endif
