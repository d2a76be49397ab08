#if os(Linux) || os(macOS) // child processes (ManashikiProcess) exist on Linux and macOS only
import Foundation
import Testing
import ManashikiTestSupport
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The README's test command, `scripts/test`, and the peers the tests declare agree.
@Suite("scripts/test: its install lists hold every peer; without root it prints the one command and runs nothing")
struct PeerCatalogTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    static let script = root.appendingPathComponent("scripts/test")

    /// `scripts/test --list`: (registry, package name without its pin) for each line.
    static func listed() throws -> [(registry: String, name: String)] {
        let r = RunningChild.run(script, ["--list"], path: Peer.searchPath, in: root)
        try #require(r.status == 0, "\(r.all)")
        return r.stdoutLines.map { line in
            let fields = line.split(separator: "\t").map(String.init)
            return (fields[0], String(fields[1].split(separator: "=").first ?? ""))
        }
    }

    @Test("every peer in the catalog is installed by scripts/test (the same registry and package)")
    func catalogIsListed() throws {
        let listed = try Self.listed()
        #expect(listed.count > 20, "\(listed)")
        for peer in Peer.all {
            let registry = if case .debian = peer.package { "debian" } else { "pypi" }
            #expect(listed.contains { $0 == (registry, peer.package.name) }, "\(peer) is not in scripts/test's lists")
        }
    }

    /// `setpriv`, when this process is root and can become nobody with it.
    static let setpriv: URL? = geteuid() == 0 ? Peer.find("setpriv") : nil

    @Test("not root with a package missing: prints `sudo scripts/test --install-only`, exits 1 and runs no swift test",
          .enabled(if: setpriv != nil, "needs root and setpriv, to run scripts/test as nobody"))
    func notRoot() throws {
        let setpriv = try #require(Self.setpriv)
        // A dpkg-query that finds nothing (every package looks missing) and a swift that says it ran.
        let bin = ScratchDirectory("fake-dpkg")
        defer { bin.remove() }
        for (name, body) in [("dpkg-query", "exit 1"), ("swift", "echo FAKE SWIFT RAN")] {
            let file = bin.url.appendingPathComponent(name)
            try Data("#!/bin/sh\n\(body)\n".utf8).write(to: file)
            chmod(file.path, 0o755)
        }
        chmod(bin.url.path, 0o755)
        let r = RunningChild.run(setpriv, ["--reuid=65534", "--regid=65534", "--clear-groups", "/bin/sh", "-c", "cd \"$0\" && exec scripts/test --filter Nothing", Self.root.path],
                                 path: "\(bin.url.path):/usr/bin:/bin", in: bin.url)
        #expect(r.status == 1, "\(r.all)")
        #expect(r.stderr.contains("\n  sudo scripts/test --install-only\n"), "\(r.stderr)")
        #expect(r.stderr.contains("nginx-light") && r.stderr.contains("check-jsonschema==0.39.0"), "\(r.stderr)")
        #expect(!r.all.contains("FAKE SWIFT RAN"), "swift test ran: \(r.all)")
    }
}
#endif
