#if os(Linux)
import Foundation
import ManashikiProcess

/// A network namespace whose only link, its loopback, is capped by `tc tbf`: a line rate with
/// a queue, no per-connection limit (a home or office uplink, a VM's NIC). The bench creates it
/// as root, runs the capped side of the `network` suite inside it (`ip netns exec`), and always
/// removes it: every process still in it is killed by pid, then the namespace deleted; one left
/// by a bench that was killed is removed by the next run (its name carries the dead pid).
final class LinkNamespace {
    static let prefix = "manashiki-bench-"
    /// The link: 400 Mbit/s (47.7 MiB/s), a 256 KiB bucket, at most 20 ms of queue (≈ 1 MB).
    static let shape = ["rate", "400mbit", "burst", "256kb", "latency", "20ms"]
    static var shapeText: String { "`tc qdisc add dev lo root tbf " + shape.joined(separator: " ") + "`" }

    let name: String

    /// Why the namespace cannot be made here, or nil when it can.
    static func unavailableReason() -> String? {
        if getuid() != 0 { return "the bench is not running as root (a network namespace and a tc qdisc need root)" }
        for tool in ["ip", "tc"] where ChildProcess.executable(named: tool) == nil {
            return "`\(tool)` is not installed (apt-get install -y iproute2)"
        }
        return nil
    }

    init() throws {
        Self.removeStale()
        name = Self.prefix + String(getpid())
        try Self.run(["ip", "netns", "add", name])
        do {
            try Self.run(inside(["ip", "link", "set", "lo", "up"]))
            try Self.run(inside(["tc", "qdisc", "add", "dev", "lo", "root", "tbf"] + Self.shape))
        } catch {
            tearDown()
            throw error
        }
        log("network namespace \(name): loopback capped with \(Self.shapeText)")
    }

    /// `argv` run inside the namespace.
    func inside(_ argv: [String]) -> [String] { ["ip", "netns", "exec", name] + argv }

    func tearDown() { Self.remove(name) }

    private static func remove(_ name: String) {
        if let pids = try? Child.run(["ip", "netns", "pids", name]) {
            for pid in pids.output.split(separator: "\n").compactMap({ Int32($0) }) { kill(pid, SIGKILL) }
        }
        _ = try? Child.run(["ip", "netns", "delete", name])
    }

    /// Removes namespaces of earlier benches whose process is gone.
    private static func removeStale() {
        guard let list = try? Child.run(["ip", "netns", "list"]) else { return }
        for line in list.output.split(separator: "\n") {
            let name = String(line.split(separator: " ").first ?? "")
            guard name.hasPrefix(prefix), let pid = Int32(name.dropFirst(prefix.count)), kill(pid, 0) != 0, errno == ESRCH else { continue }
            log("removing the network namespace \(name) left by an earlier bench")
            remove(name)
        }
    }

    private static func run(_ argv: [String]) throws {
        let r = try Child.run(argv)
        guard r.status == 0 else { throw BenchError("`\(argv.joined(separator: " "))` failed (exit \(r.status))") }
    }
}

/// The packets the capped link dropped (its queue was full), read from `tc -s qdisc` inside
/// the namespace: parallel connections overflow the queue and back off.
final class QdiscCounter {
    private var start = 0

    static func dropped() -> Int {
        guard let r = try? Child.run(["tc", "-s", "qdisc", "show", "dev", "lo"]) else { return 0 }
        // " Sent 123 bytes 45 pkt (dropped 6, overlimits 7 requeues 0)"
        guard let range = r.output.range(of: "dropped ") else { return 0 }
        return Int(r.output[range.upperBound...].prefix { $0.isNumber }) ?? 0
    }

    func mark() { start = Self.dropped() }
    func delta() -> Int { Self.dropped() - start }
}
#endif
