#if os(Linux)
import Foundation
import ManashikiProcess

/// A network namespace whose only link, its loopback, is shaped by `tc`: (`Shaping.link`) capped
/// by `tbf`, a line rate with a queue and no per-connection limit (a home or office uplink, a
/// VM's NIC), or (`Shaping.perConnection`) every TCP connection limited on its own by the kernel
/// (an `htb` class per client port, a `u32` filter on `ip dport` for each, the namespace's
/// ephemeral ports narrowed to those ports): a CDN's per-connection limit that, unlike nginx's
/// `limit_rate`, credits no second to each new request. The bench creates it as root, runs the
/// shaped side of the `network` suite inside it (`ip netns exec`), and always removes it: every
/// process still in it is killed by pid, then the namespace deleted; one left by a bench that was
/// killed is removed by the next run (its name carries the dead pid).
final class LinkNamespace {
    /// How the namespace's loopback is shaped.
    enum Shaping {
        /// `tbf` on the whole link (`shape`).
        case link
        /// `htb`: `perConnectionRate` per client port of `clientPorts`.
        case perConnection
    }

    static let prefix = "manashiki-bench-"
    /// The link: 400 Mbit/s (47.7 MiB/s), a 256 KiB bucket, at most 20 ms of queue (≈ 1 MB).
    static let shape = ["rate", "400mbit", "burst", "256kb", "latency", "20ms"]
    static var shapeText: String { "`tc qdisc add dev lo root tbf " + shape.joined(separator: " ") + "`" }
    /// Each TCP connection's limit (tc's unit: 12 MiB per second), as issue #34 measured a CDN.
    static let perConnectionRate = "12mibps"
    /// The client ports (the namespace's `ip_local_port_range`), one `htb` class each: more than
    /// any peer opens at once (16 connections), with room for the servers' listening ports and
    /// for connections in TIME_WAIT (`tcp_tw_reuse` is on).
    static let clientPorts = 40000..<40064
    static var perConnectionText: String {
        "`tc` `htb` class of \(perConnectionRate) (12 MiB/s) per client port \(clientPorts.lowerBound)–\(clientPorts.upperBound - 1), " +
            "a `u32` filter on `ip dport` for each, `net.ipv4.ip_local_port_range` narrowed to those ports"
    }

    let name: String

    /// Why the namespace cannot be made here, or nil when it can.
    static func unavailableReason() -> String? {
        if getuid() != 0 { return "the bench is not running as root (a network namespace and a tc qdisc need root)" }
        for tool in ["ip", "tc", "sysctl"] where ChildProcess.executable(named: tool) == nil {
            return "`\(tool)` is not installed (apt-get install -y iproute2 procps)"
        }
        return nil
    }

    init(_ shaping: Shaping = .link) throws {
        Self.removeStale()
        name = Self.prefix + String(getpid())
        try Self.run(["ip", "netns", "add", name])
        do {
            try Self.run(inside(["ip", "link", "set", "lo", "up"]))
            switch shaping {
            case .link:
                try Self.run(inside(["tc", "qdisc", "add", "dev", "lo", "root", "tbf"] + Self.shape))
                log("network namespace \(name): loopback capped with \(Self.shapeText)")
            case .perConnection:
                try shapePerConnection()
                log("network namespace \(name): \(Self.perConnectionText)")
            }
        } catch {
            tearDown()
            throw error
        }
    }

    /// One `htb` class per client port (class ids 1:10 on, in hex), a filter sending the
    /// packets to that port (the server's answers) into it; everything else unlimited.
    private func shapePerConnection() throws {
        try Self.run(inside(["sysctl", "-q", "-w", "net.ipv4.ip_local_port_range=\(Self.clientPorts.lowerBound) \(Self.clientPorts.upperBound - 1)",
                             "net.ipv4.tcp_tw_reuse=1"]))
        try Self.run(inside(["tc", "qdisc", "add", "dev", "lo", "root", "handle", "1:", "htb", "default", "1"]))
        try Self.run(inside(["tc", "class", "add", "dev", "lo", "parent", "1:", "classid", "1:1", "htb", "rate", "10gbit", "quantum", "60000"]))
        for (i, port) in Self.clientPorts.enumerated() {
            let classID = "1:" + String(i + 16, radix: 16)
            try Self.run(inside(["tc", "class", "add", "dev", "lo", "parent", "1:", "classid", classID, "htb", "rate", Self.perConnectionRate,
                                 "ceil", Self.perConnectionRate, "burst", "256k", "cburst", "256k", "quantum", "60000"]))
            try Self.run(inside(["tc", "filter", "add", "dev", "lo", "parent", "1:", "protocol", "ip", "prio", "1", "u32",
                                 "match", "ip", "dport", String(port), "0xffff", "flowid", classID]))
        }
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
