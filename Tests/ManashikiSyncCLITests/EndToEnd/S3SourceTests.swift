#if os(Linux) || os(macOS)
import Foundation
import ManashikiCore
import ManashikiTestSupport
import ManashikiLoopback
import Manashiki
import ManashikiSync
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A bucket as a source, with real parts: what `export s3://` wrote to SeaweedFS (the suite's one
/// server, shared with `S3BucketTests`) read back by `sync` through the transfer engine, each
/// request signed; the bucket refusing the credentials, serving a corrupt blob, dying mid-download.
@Suite("S3 buckets as a source: sync reads what export s3:// wrote, signed, verified against the index's digest; refusals fall back, corruption is refused, a killed server resumes",
       .requires(.weed, .aws, .curl))
struct S3SourceTests {
    @Test("export then sync through the bucket with the read-only identity: every byte from the bucket (the 12 MiB blob above the parallel threshold, in signed ranges), none from the registry's storage; the credential source named in --json and status, never the secret")
    func syncFromBucket() async throws {
        let s3 = try await S3Fixture.shared()
        let fixture = try await S3Fixture.synced()
        let prefix = S3Fixture.prefix("source")
        try await fixture.export(to: s3, prefix: prefix)
        let label = try fixture.readFromBucket(s3, prefix: prefix, policies: #"{"checkCompatibility": false, "transfer": {"parallelThresholdBytes": 4194304}}"#)
        let sync = try await fixture.run(["sync", "--json"], environment: fixture.environment(SeaweedS3.reader))
        #expect(sync.status == 0, "\(sync.all)")
        let summary = sync.summary()
        let total = (64 << 10) + S3Fixture.largeSize
        #expect(summary["bytesBySource"] as? [String: Int] == [label: total], "\(summary)")
        #expect(summary["sourceCredentials"] as? [String: String] == [label: "environment"], "\(summary)")
        #expect(summary["warnings"] as? [String] == [], "\(summary)")
        for id in ["small", "large"] {
            #expect(fixture.installed(id) == fixture.expected(id))
            #expect(sync.summaryModel(id)?["source"] as? String == label)
        }
        let status = try await fixture.run(["status", "--json"], environment: fixture.environment(SeaweedS3.reader))
        let lastRun = status.summary()["lastRun"] as? [String: Any]
        #expect(lastRun?["sourceCredentials"] as? [String: String] == [label: "environment"], "\(status.all)")
        let text = try await fixture.run(["status"], environment: fixture.environment(SeaweedS3.reader))
        #expect(text.stdout.contains("\(label): credentials from environment"), "\(text.all)")
        for output in [sync.all, status.all, text.all] { #expect(!output.contains(SeaweedS3.reader.secretKey)) }
    }

    @Test("a bucket that refuses the credentials (wrong secret) is a failed source: the run falls back to the registry naming GetObject, the key, 403 SignatureDoesNotMatch and what to do; with \"fallback\": \"none\" it exits 1, never 2")
    func refusedCredentialsFallBack() async throws {
        let s3 = try await S3Fixture.shared()
        let fixture = try await S3Fixture.synced()
        let prefix = S3Fixture.prefix("refused")
        try await fixture.export(to: s3, prefix: prefix)
        var wrong = SeaweedS3.reader
        wrong.secretKey = "Kq7WrongSecret/0123456789abcdefghijklm"
        try fixture.readFromBucket(s3, prefix: prefix)
        let fellBack = try await fixture.run(["sync", "--json"], environment: fixture.environment(wrong))
        #expect(fellBack.status == 0, "\(fellBack.all)")
        let summary = fellBack.summary()
        #expect(summary["bytesBySource"] as? [String: Int] == ["registry": (64 << 10) + S3Fixture.largeSize], "\(summary)")
        let warnings = (summary["warnings"] as? [String] ?? []).joined(separator: "\n")
        #expect(warnings.contains("S3 GetObject s3://models/\(prefix)index.json: HTTP 403 SignatureDoesNotMatch"), "\(warnings)")
        #expect(warnings.contains("does not match their access key id"), "\(warnings)")

        try fixture.readFromBucket(s3, prefix: prefix, fallback: "none")
        let failed = try await fixture.run(["sync"], environment: fixture.environment(wrong))
        #expect(failed.status == 1, "\(failed.all)")
        #expect(failed.stderr.contains("SignatureDoesNotMatch") && failed.stderr.contains("is not available"), "\(failed.stderr)")
        #expect(fixture.installed("small") == nil)
        for output in [fellBack.all, failed.all] { #expect(!output.contains(wrong.secretKey) && !output.contains(SeaweedS3.reader.secretKey)) }
    }

    @Test("a corrupted blob in the bucket (same size, other bytes, written by the AWS CLI) is refused, never installed, and fetched from the registry; the other blob still comes from the bucket")
    func corruptBlobRefused() async throws {
        let s3 = try await S3Fixture.shared()
        let fixture = try await S3Fixture.synced()
        let prefix = S3Fixture.prefix("corrupt")
        try await fixture.export(to: s3, prefix: prefix)
        var bad = fixture.expected("small")
        bad[bad.count / 2] ^= 0xFF
        let file = fixture.directory.appendingPathComponent("bad.bin")
        try bad.write(to: file)
        let (put, _) = try await S3Fixture.aws(s3, ["s3api", "put-object", "--bucket", "models", "--key", "\(prefix)blobs/sha256/\(fixture.sha256("small"))", "--body", file.path])
        try #require(put.succeeded, "\(put.output)")
        let label = try fixture.readFromBucket(s3, prefix: prefix)
        let sync = try await fixture.run(["sync", "--json"], environment: fixture.environment(SeaweedS3.reader))
        #expect(sync.status == 0, "\(sync.all)")
        let summary = sync.summary()
        #expect(summary["bytesBySource"] as? [String: Int] == [label: S3Fixture.largeSize, "registry": 64 << 10], "\(summary)")
        #expect((summary["warnings"] as? [String] ?? []).contains { $0.contains("\(label) served a corrupt copy of small") }, "\(summary)")
        #expect(fixture.installed("small") == fixture.expected("small") && fixture.installed("large") == fixture.expected("large"))
    }

    @Test("publisher signatures from a bucket: export s3:// carries each model's model.sig, a fresh machine pinning only the key installs from the bucket alone (signer in --json, found in the bucket); small's signature replaced by another publisher's, at its key or named by a rewritten index, is refused and small not installed",
          .requires(.openssl, .modelSigning, .pyOpenSSL))
    func signaturesFromBucket() async throws {
        let s3 = try await S3Fixture.shared()
        let fixture = try await S3Fixture.synced(largeSize: 1 << 20)   // the large blob's size plays no part here
        let kit = try PublisherSigningKit.make()
        let (privateKey, publicKey) = try await kit.key("publisher")
        let (otherKey, _) = try await kit.key("other")
        let fingerprint = try PublisherKey(contentsOf: publicKey).fingerprint
        let trust = #""trust": {"modelSigning": {"keys": [{"file": "\#(publicKey.path)"}]}}, "#

        // The origin's store gets the publisher's signatures from a bundle holding only them
        // (its models are kept, checked and their signatures stored), then exports to the bucket.
        let signatures = BundleLayout(directory: kit.file("signatures"))
        try FileManager.default.createDirectory(at: signatures.blobDirectory, withIntermediateDirectories: true)
        var entries: [PinnedArtifact] = []
        for (id, version) in [("small", "1.0.0"), ("large", "2.0.0")] {
            let signature = try await Self.sign(fixture.expected(id), as: id, kit: kit, privateKey: privateKey)
            let reference = SignatureReference(sha256: SHA256Hasher.hash(signature).hex, size: Int64(signature.count))
            try signature.write(to: signatures.blob(reference.sha256))
            entries.append(PinnedArtifact(modelId: id, version: version, size: Int64(fixture.expected(id).count), sha256: fixture.sha256(id), signature: reference))
        }
        try BundleIndex(models: entries).encoded().write(to: signatures.indexFile)
        try fixture.writeManifest(sources: #"[{"bundle": "\#(signatures.directory.path)"}]"#, extra: trust)
        let origin = try await fixture.run(["sync", "--json"])
        try #require(origin.status == 0, "\(origin.all)")
        let prefix = S3Fixture.prefix("signed")
        try await fixture.export(to: s3, prefix: prefix)
        let keys = try await S3Fixture.keys(s3, prefix: prefix)
        for entry in entries { #expect(keys.contains(prefix + BundleLayout.blobPath(entry.signature?.sha256 ?? "")), "\(keys)") }

        // A fresh machine: only the key pinned, the bucket its only source (no signatureURL, no fallback).
        let label = try fixture.readFromBucket(s3, prefix: prefix, fallback: "none", extra: trust)
        let sync = try await fixture.run(["sync", "--json"], environment: fixture.environment(SeaweedS3.reader))
        #expect(sync.status == 0, "\(sync.all)")
        for id in ["small", "large"] {
            let result = sync.summaryModel(id) ?? [:]
            #expect(result["status"] as? String == "installed", "\(result)")
            #expect((result["signer"] as? [String: Any])?["keyFingerprint"] as? String == fingerprint, "\(result)")
            let facts = ((result["trust"] as? [[String: Any]])?.first?["facts"] as? [String: String]) ?? [:]
            #expect(facts["origin"]?.hasPrefix(label) == true, "\(facts)")
            #expect(fixture.installed(id) == fixture.expected(id))
        }

        // small's signature replaced by the AWS CLI with another publisher's signature of the same bytes and name.
        let forged = try await Self.sign(fixture.expected("small"), as: "small", kit: kit, privateKey: otherKey)
        let forgedFile = kit.file("forged.sig")
        try forged.write(to: forgedFile)
        let original = try #require(entries[0].signature)
        // At its key: the digest the index names no longer matches, so no signature is found.
        try await Self.put(s3, prefix + BundleLayout.blobPath(original.sha256), forgedFile)
        try await Self.expectSmallRefused(fixture, s3, prefix: prefix, trust: trust, problem: "missing")
        // Beside it, with the index rewritten to name it: the signature itself is refused.
        let forgedReference = SignatureReference(sha256: SHA256Hasher.hash(forged).hex, size: Int64(forged.count))
        try await Self.put(s3, prefix + BundleLayout.blobPath(forgedReference.sha256), forgedFile)
        let (get, _) = try await S3Fixture.aws(s3, ["s3api", "get-object", "--bucket", "models", "--key", prefix + BundleLayout.indexName, kit.file("index.json").path])
        try #require(get.succeeded, "\(get.output)")
        var index = try BundleIndex.decode(Data(contentsOf: kit.file("index.json")), location: "bucket")
        index.models = index.models.map { entry in
            var changed = entry
            if entry.modelId == "small" { changed.signature = forgedReference }
            return changed
        }
        try index.encoded().write(to: kit.file("index.json"))
        try await Self.put(s3, prefix + BundleLayout.indexName, kit.file("index.json"))
        try await Self.expectSmallRefused(fixture, s3, prefix: prefix, trust: trust, problem: "unknown-key")
    }

    /// `model.sig` of `bytes` signed as `<id>.bin` by `model_signing sign key` with `privateKey`.
    static func sign(_ bytes: Data, as id: String, kit: PublisherSigningKit, privateKey: URL) async throws -> Data {
        let model = kit.file("\(id).bin")
        try bytes.write(to: model)
        let signature = kit.file("\(id)-\(privateKey.deletingPathExtension().lastPathComponent).sig")
        try await kit.signWithKey(model, privateKey: privateKey, signature: signature)
        return try Data(contentsOf: signature)
    }

    /// `file` put at `key` of the `models` bucket by the AWS CLI (admin).
    static func put(_ s3: SeaweedS3, _ key: String, _ file: URL) async throws {
        let (put, _) = try await S3Fixture.aws(s3, ["s3api", "put-object", "--bucket", "models", "--key", key, "--body", file.path])
        try #require(put.succeeded, "\(put.output)")
    }

    /// A fresh machine syncing from the bucket alone: small refused for its publisher signature
    /// (`problem`) and not installed, large installed (exit 3).
    static func expectSmallRefused(_ fixture: S3Fixture, _ s3: SeaweedS3, prefix: String, trust: String, problem: String,
                                   sourceLocation: SourceLocation = #_sourceLocation) async throws {
        try fixture.readFromBucket(s3, prefix: prefix, fallback: "none", extra: trust)
        let sync = try await fixture.run(["sync", "--json"], environment: fixture.environment(SeaweedS3.reader))
        #expect(sync.status == 3, "\(sync.all)", sourceLocation: sourceLocation)
        let small = sync.summaryModel("small") ?? [:]
        #expect(small["status"] as? String == "failed", "\(small)", sourceLocation: sourceLocation)
        let refusal = small["trustRefusal"] as? [String: Any]
        #expect(refusal?["mechanism"] as? String == "model-signing" && refusal?["problem"] as? String == problem, "\(sync.all)", sourceLocation: sourceLocation)
        #expect(sync.stderr.contains("small 1.0.0"), "\(sync.stderr)", sourceLocation: sourceLocation)
        #expect(fixture.installed("small") == nil, sourceLocation: sourceLocation)
        #expect(fixture.installed("large") == fixture.expected("large"), sourceLocation: sourceLocation)
    }

    @Test("the server killed with SIGKILL mid-download: the run fails (fallback none, exit 1) keeping the bytes; once the server is back the next run fetches only the rest from the bucket")
    func killedServerResumes() async throws {
        // Its own server: killing the suite's shared one would fail the tests running beside this one.
        let scratch = ScratchDirectory("manashiki-seaweedfs-kill")
        let s3 = try await SeaweedS3.start(workdir: scratch.url)   // no lifetime: SIGKILL reaches weed itself
        SeaweedS3Reaper.track(s3.pid)
        defer { s3.stop() }
        // 48 MiB: more than the loopback socket buffers hold, so a dead server leaves most of it unsent.
        let fixture = try await S3Fixture.synced(largeSize: 48 << 20)
        let prefix = S3Fixture.prefix("killed")
        try await fixture.export(to: s3, prefix: prefix)
        // 2 MiB/s: the blob takes 24 seconds, 18 of them inside the window below, so the kill lands
        // inside it even when this test's tasks wait seconds for a thread (the full suite on 2 cores).
        let label = try fixture.readFromBucket(s3, prefix: prefix, policies: #"{"checkCompatibility": false, "retry": {"maxAttempts": 1}, "maxBytesPerSecond": 2097152}"#,
                                               fallback: "none")
        let child = try fixture.start(["sync", "--json"], environment: fixture.environment(SeaweedS3.reader))
        let store = fixture.store
        var caught = false, seen: [Int64] = []
        // Up to 5 minutes while the child runs: on a loaded 2-core machine it may take most of a
        // minute to reach the blob. A child that ends first fails the test with what it printed.
        for _ in 0..<6000 where !caught && child.isRunning {
            seen = PartialFolder.resumableBytes(in: store)
            caught = seen.contains { $0 >= 4 << 20 && $0 < 40 << 20 }
            if !caught { try await Task.sleep(for: .milliseconds(50)) }
        }
        if !caught {
            let early = await child.finish(timeout: 5)
            Issue.record("the download was not caught mid-transfer (kept partials: \(seen)); the run: \(early.all)")
            return
        }
        s3.killHard()
        let first = await child.finish(timeout: 60)
        #expect(first.status == 1 || first.status == 3, "\(first.all)")
        let kept = try #require(PartialFolder.resumableBytes(in: store).max(), "no partial kept: \(first.all)")
        #expect(kept >= 4 << 20 && kept < fixture.large)
        try s3.restart()
        // restart() returns once a listing answers; the volume server may serve data a moment later.
        // The promise under test is the resume, so wait until the blob itself reads again.
        var readable = false
        for _ in 0..<60 where !readable {
            let (get, _) = try await S3Fixture.aws(s3, ["s3api", "get-object", "--bucket", "models", "--key", "\(prefix)blobs/sha256/\(fixture.sha256("large"))",
                                                        "--range", "bytes=0-0", "/dev/null"])
            readable = get.succeeded
            if !readable { try await Task.sleep(for: .seconds(1)) }
        }
        try #require(readable, "the restarted server never served the blob again")
        // The rest at full speed: the same manifest without the cap (the store kept as it is).
        try fixture.writeManifest(policies: #"{"checkCompatibility": false, "retry": {"maxAttempts": 1}}"#,
                                  sources: #"[{"s3": "s3://models/\#(prefix)", "endpoint": "\#(s3.endpoint.absoluteString)"}]"#, fallback: "none")
        let second = try await fixture.run(["sync", "--json"], environment: fixture.environment(SeaweedS3.reader))
        #expect(second.status == 0, "\(second.all)")
        let resumed = second.summaryModel("large")?["resumedFrom"] as? Int ?? 0
        #expect(Int64(resumed) >= kept, "\(second.all)")
        let fromBucket = (second.summary()["bytesBySource"] as? [String: Int])?[label] ?? -1
        // The promise: what was kept is never fetched again (the small model may come in this run too).
        let smallAgain = second.summaryModel("small")?["status"] as? String == "installed" ? 64 << 10 : 0
        #expect(fromBucket == fixture.large - resumed + smallAgain, "\(second.summary())")
        #expect(fixture.installed("large") == fixture.expected("large"))
    }
}
#endif
