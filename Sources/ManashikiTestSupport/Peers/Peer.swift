#if os(Linux) || os(macOS) // child processes (ManashikiProcess) exist on Linux and macOS only
import Foundation
import ManashikiCore
import ManashikiProcess

/// A program from another package that tests start or run: nginx, tinyproxy, promtool, a
/// Python module… The one way a test asks whether one is installed (`isInstalled`), finds it
/// (`executable`), and is skipped without it (`.requires(.nginx)`, ConditionTrait+Peers).
/// The catalog is in Peer+Catalog.swift; each entry names the package `scripts/test`
/// installs for it (PeerCatalogTests checks that the script's lists have them all).
package struct Peer: Sendable, CustomStringConvertible {
    /// How a peer is found.
    package enum Kind: Sendable, Hashable {
        /// A program on `Peer.searchPath`.
        case command(String)
        /// A module `python3` (the one on `Peer.searchPath`) can import.
        case pythonModule(String)
    }

    /// How it is found.
    package let kind: Kind
    /// The package that provides it (on Linux, and everywhere for PyPI packages).
    package let package: PeerPackage
    /// Its Homebrew formula, for macOS (the Apple workflow installs these); nil when there is none.
    package let homebrew: String?
    /// Where it is, found once (nil: not installed). A Python module's is `python3`'s.
    package let executable: URL?

    /// A peer; `executable` is looked up now (catalog entries are `static let`, so once).
    package init(_ kind: Kind, from package: PeerPackage, homebrew: String? = nil) {
        self.kind = kind
        self.package = package
        self.homebrew = homebrew
        switch kind {
        case .command(let name):
            executable = Self.find(name)
        case .pythonModule(let module):
            let python = Self.find("python3")
            let imports = python.map {
                RunningChild.run($0, ["-c", "import \(module)"], environment: Self.environment, path: Self.searchPath).status == 0
            } ?? false
            executable = imports ? python : nil
        }
    }

    /// Whether it is installed.
    package var isInstalled: Bool { executable != nil }

    /// `nginx`, `python3 -c 'import oras'`: what a test runs, for messages.
    package var name: String {
        switch kind {
        case .command(let name): name
        case .pythonModule(let module): "the Python module \(module)"
        }
    }

    /// "nginx (the Debian package nginx-light)".
    package var description: String { "\(name) (\(package))" }

    /// The directories searched, in order: this process's PATH, then the usual system and
    /// Homebrew directories (nginx is in /usr/sbin, which a user's PATH may lack; pip's console
    /// scripts may be pyenv shims, found through PATH).
    package static var searchPath: String {
        let inherited = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init)
        let system = ["/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin", "/opt/homebrew/bin"]
        return (inherited + system.filter { !inherited.contains($0) }).joined(separator: ":")
    }

    /// The environment a peer runs with: `searchPath`, the real HOME, and pyenv's root when set.
    package static var environment: [String: String] {
        var environment = ["PATH": searchPath, "HOME": NSHomeDirectory()]
        if let root = ProcessInfo.processInfo.environment["PYENV_ROOT"] { environment["PYENV_ROOT"] = root }
        return environment
    }

    /// The program `name` on `searchPath`, or nil.
    package static func find(_ name: String) -> URL? {
        ChildProcess.executable(named: name, path: searchPath)
    }

    /// Whether this machine's CI can install it: Debian and PyPI packages on Linux; a Homebrew
    /// formula or a PyPI package on macOS. A missing peer that cannot be installed here (strace
    /// on a Mac) is skipped even under CI, saying so.
    package var isInstallableHere: Bool {
        if OperatingSystem.current == .linux { return true }
        if case .pypi = package { return true }
        return homebrew != nil
    }

    /// Its executable, or a `PeerMissing` error saying which package provides it.
    package func require() throws -> URL {
        guard let executable else { throw PeerMissing(peers: [self]) }
        return executable
    }

    /// Whether a missing peer fails a test instead of skipping it: `CI` set to anything but
    /// `false`/`0`/empty (GitHub Actions, GitLab and `.ci/run` set `CI=true`), so CI never skips silently.
    package static var missingIsFailure: Bool {
        let value = (ProcessInfo.processInfo.environment["CI"] ?? "").lowercased()
        return !["", "0", "false", "no"].contains(value)
    }
}
#endif
