#if os(Linux) || os(macOS) // child processes (ManashikiProcess) exist on Linux and macOS only
import Testing

extension Trait where Self == ConditionTrait {
    /// Runs the test (or suite) only where every peer is installed:
    ///
    /// ```swift
    /// @Test("nginx serves an exported bundle", .requires(.nginx))
    /// ```
    ///
    /// Without one, plain `swift test` skips it, the skip saying which package provides it;
    /// with `CI=true` (`Peer.missingIsFailure`) the test fails instead with the same text, so CI
    /// never skips silently.
    package static func requires(_ peers: Peer..., sourceLocation: SourceLocation = #_sourceLocation) -> Self {
        let missing = PeerMissing(peers: peers.filter { !$0.isInstalled })
        let comment = Comment(rawValue: missing.peers.isEmpty ? "needs \(peers.map(\.description).joined(separator: ", "))" : missing.description)
        let isFailure = Peer.missingIsFailure
        // Swift Testing records an error thrown by a condition as the test's failure.
        return .enabled(comment, sourceLocation: sourceLocation) { try missing.shouldRun(missingIsFailure: isFailure) }
    }
}
#endif
