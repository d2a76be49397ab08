#if os(Linux) || os(macOS) // python-tuf makes the repositories (ManashikiProcess: Linux and macOS)
import Foundation
import Manashiki
import ManashikiCore
import ManashikiTestSupport
import Testing

/// `trust.tuf` as the artifact trust: what a python-tuf repository signs decides what installs.
@Suite("TUF artifact trust", .requires(.pythonTUF, .pythonCryptography))
struct TUFArtifactTrustTests {
    let repo: PythonTUFRepository
    let local = ScratchDirectory("tuf-trust")
    let bytes = Array("model bytes".utf8)
    var digest: String { DigestAlgorithm.sha256.hex(bytes) }

    init() throws {
        repo = try PythonTUFRepository()
        try repo.publish(["targets": ["add": [
            ["path": "models/tiny/1.0.0.bin", "length": bytes.count, "sha256": DigestAlgorithm.sha256.hex(bytes)],
            ["path": "models/tiny/2.0.0.bin", "length": bytes.count, "sha256": DigestAlgorithm.sha256.hex(bytes)],
        ]]])
    }

    func trust(now: Date = Date()) -> TUFArtifactTrust {
        let updater = TUFUpdater(anchor: repo.initialRoot, store: TUFMetadataStore(directory: local.file("metadata")),
                                 source: TUFDirectorySource(directory: repo.metadataDirectory), now: now)
        return TUFArtifactTrust(updater: updater, highWater: FileHighWaterMarks(file: local.file("high-water.json")))
    }

    func candidate(_ version: String, sha256: String? = nil, pinned: Bool = false) -> ArtifactCandidate {
        ArtifactCandidate(modelId: "tiny", version: version, sha256: sha256 ?? digest, size: Int64(bytes.count), source: "registry", pinnedExactly: pinned)
    }

    func refusal(_ trust: TUFArtifactTrust, _ c: ArtifactCandidate) async -> TrustRefusal? {
        do { _ = try await trust.evaluate(c); return nil } catch { return error }
    }

    @Test("a signed version with the signed digest and length is trusted, with the metadata versions as evidence")
    func signed() async throws {
        let evidence = try await trust().evaluate(candidate("2.0.0"))
        #expect(evidence.mechanism == "tuf" && evidence.facts["target"] == "models/tiny/2.0.0.bin" && evidence.facts["targets"] == "2")
    }

    @Test("a registry digest other than the signed one is refused naming both")
    func mismatch() async throws {
        let other = String(repeating: "0", count: 64)
        let refusal = await refusal(trust(), candidate("2.0.0", sha256: other))
        guard case .mismatch(let signed, let offered)? = refusal?.reason else { Issue.record("\(String(describing: refusal))"); return }
        #expect(signed.contains(digest) && offered.contains(other))
        #expect(refusal?.description.contains("the installed file stays") == true)
    }

    @Test("a version the repository does not sign is refused")
    func unsigned() async throws {
        #expect(await refusal(trust(), candidate("3.0.0"))?.reason == .notSigned)
    }

    @Test("after 2.0.0 installed, 1.0.0 is a refused rollback unless pinned exactly")
    func modelRollback() async throws {
        let t = trust()
        let installed = candidate("2.0.0")
        try await t.didInstall(installed, evidence: try await t.evaluate(installed))
        let later = trust()
        #expect(await refusal(later, candidate("1.0.0"))?.reason == .rollback(highest: "2.0.0", offered: "1.0.0"))
        _ = try await later.evaluate(candidate("1.0.0", pinned: true))
    }

    @Test("expired metadata refuses every candidate naming the role and when")
    func expired() async throws {
        try repo.publish(["roles": ["timestamp"], "expires": ["timestamp": "2021-06-01T00:00:00Z"]])
        let refusal = await refusal(trust(), candidate("2.0.0"))
        #expect(refusal?.reason == .expired(role: "timestamp", at: Date(timeIntervalSince1970: 1_622_505_600)))
        #expect(refusal?.role == "timestamp" && refusal?.isRetryable == false)
    }
}
#endif
