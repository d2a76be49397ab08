#if os(Linux) || os(macOS) // child processes (ManashikiProcess) exist on Linux and macOS only
import Foundation
import ManashikiCore

/// Peers a test needs that this machine lacks: the text a skip shows, and the error that fails
/// the test instead when `Peer.missingIsFailure` (CI).
package struct PeerMissing: Error, CustomStringConvertible {
    /// The missing peers, in the order the test named them.
    package let peers: [Peer]

    /// The error for `peers` (none: nothing is missing).
    package init(peers: [Peer]) { self.peers = peers }

    /// "needs nginx (the Debian package nginx-light), not installed here: scripts/test installs
    /// it, or apt-get install nginx-light".
    package var description: String {
        let names = peers.map(\.description).joined(separator: ", ")
        let debian = peers.compactMap { if case .debian(let name) = $0.package { name } else { nil } }
        let pypi = peers.compactMap { if case .pypi(let name) = $0.package { name } else { nil } }
        var commands: [String] = []
        if !debian.isEmpty { commands.append("apt-get install \(debian.joined(separator: " "))") }
        if !pypi.isEmpty { commands.append("python3 -m pip install \(pypi.joined(separator: " "))") }
        if OperatingSystem.current != .linux {
            let formulas = peers.compactMap(\.homebrew)
            if formulas.count < debian.count { return "needs \(names), which is not available on \(OperatingSystem.current.name)" }
            if !formulas.isEmpty { commands[0] = "brew install \(formulas.joined(separator: " "))" }
        }
        return "needs \(names), not installed here: scripts/test installs it, or \(commands.joined(separator: " and "))"
    }

    /// What `.requires` decides: run (nothing missing), skip (false), or fail (throws `self`)
    /// when something is missing, `missingIsFailure`, and this machine could have installed it
    /// (`Peer.isInstallableHere`).
    package func shouldRun(missingIsFailure: Bool) throws -> Bool {
        if peers.isEmpty { return true }
        if missingIsFailure && peers.contains(where: \.isInstallableHere) { throw self }
        return false
    }
}
#endif
