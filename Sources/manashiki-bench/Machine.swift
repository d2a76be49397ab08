#if os(Linux)
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// What the bench reads from, and does to, the machine between runs: the load average, the
/// CPU time other processes used during a run, and flushing the page cache.
enum Machine {
    /// The 1-minute load average.
    static func loadAverage() -> Double {
        guard let text = try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8) else { return 0 }
        return Double(text.split(separator: " ").first ?? "0") ?? 0
    }

    /// Busy CPU seconds of the whole machine so far (every state but idle and iowait), from
    /// `/proc/stat`. The difference over a run, minus the run's own CPU, is what other
    /// processes (the other engineers' compilers) took from it.
    static func busyCPUSeconds() -> Double {
        guard let text = try? String(contentsOfFile: "/proc/stat", encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix("cpu ") }) else { return 0 }
        let fields = line.split(separator: " ").dropFirst().compactMap { Double($0) }
        guard fields.count >= 5 else { return 0 }
        // user nice system idle iowait irq softirq steal …
        let busy = fields.enumerated().filter { $0.offset != 3 && $0.offset != 4 && $0.offset < 8 }.map(\.element).reduce(0, +)
        return busy / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// Waits (at most `patience` seconds) until the load average is at most `limit`.
    static func waitForLoad(below limit: Double?, patience: Double = 120) {
        guard let limit else { return }
        let start = Date()
        var said = false
        while loadAverage() > limit && Date().timeIntervalSince(start) < patience {
            if !said { log(String(format: "load %.2f > %.2f: waiting up to %.0f s for a quieter machine", loadAverage(), limit, patience)); said = true }
            sleep(2)
        }
    }
}

/// How the page cache is reset before each run, so that no tool pays for another's writeback
/// or profits from its cached pages.
enum CacheFlush: Equatable {
    /// `sync` then `echo 3 > /proc/sys/vm/drop_caches` (root, and permitted by the container).
    case dropCaches
    /// `sync` only: dirty pages are written back before each run, clean ones stay cached.
    case syncOnly

    /// Probes once whether dropping caches is permitted here.
    static func probe() -> CacheFlush {
        sync()
        return writeDropCaches() ? .dropCaches : .syncOnly
    }

    private static func writeDropCaches() -> Bool {
        let fd = open("/proc/sys/vm/drop_caches", O_WRONLY)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return write(fd, "3\n", 2) == 2
    }

    func run() {
        sync()
        if self == .dropCaches { _ = Self.writeDropCaches() }
    }

    var description: String {
        switch self {
        case .dropCaches: return "`sync` and `echo 3 > /proc/sys/vm/drop_caches` before every run"
        case .syncOnly: return "`sync` before every run (dropping the page cache is not permitted here)"
        }
    }
}

/// A scratch directory on tmpfs: a tmpfs the bench mounts itself when it runs as root, else
/// `/dev/shm`.
final class TmpfsScratch {
    let url: URL
    let description: String
    private let mounted: Bool

    init(under workdir: URL) throws {
        let point = workdir.appendingPathComponent("tmpfs")
        try FileManager.default.createDirectory(at: point, withIntermediateDirectories: true)
        if getuid() == 0, (try? Child.run(["mount", "-t", "tmpfs", "-o", "size=12g,mode=0755", "manashiki-bench", point.path]))?.status == 0 {
            url = point
            mounted = true
            description = "a tmpfs the bench mounted at \(point.path)"
        } else {
            url = URL(fileURLWithPath: "/dev/shm/manashiki-bench-\(getpid())")
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            mounted = false
            description = "/dev/shm (not root: could not mount a tmpfs)"
        }
    }

    func tearDown() {
        if mounted {
            _ = try? Child.run(["umount", url.path])
        } else {
            try? FileManager.default.removeItem(at: url)
        }
    }
}
#endif
