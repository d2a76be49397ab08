import Foundation
import ManashikiTestSupport
import Testing
@testable import Manashiki
import ManashikiRegistry
import ManashikiCore

/// downloadModel over real loopback HTTP against the development registry.
@Suite("downloadModel against the development registry")
struct DownloadIntegrationTests {
    @Test("a download streams with progress, verifies and installs the registry's exact bytes")
    func success() async throws {
        let f = try RegistryFixture()
        let progress = Locked<[(Int64, Int64?)]>([])
        let model = try await f.client().downloadModel("tiny") { w, t in progress.withLock { $0.append((w, t)) } }
        let expected = try #require(f.registry.artifactBytes(modelId: "tiny"))
        #expect(try Data(contentsOf: model.localURL) == expected)
        #expect(model.sha256 == f.registry.sha256(modelId: "tiny") && model.verified && model.version == "1.0.0")
        let p = progress.current
        #expect(p.count >= 4 && p.last?.0 == Int64(expected.count))
        #expect(p.allSatisfy { $0.1 == Int64(expected.count) }, "totals: \(p.map { $0.1.map(String.init) ?? "nil" })")
        #expect(f.leftovers.isEmpty && f.storageRequestsAreClean)
        let api = f.registry.requestLog().filter { $0.origin == .api }
        #expect(api.allSatisfy { $0.header("X-API-Key") == RegistryFixture.publicKey })
    }

    @Test("a wrong registry digest fails with integrityMismatch and keeps the previous file")
    func wrongDigest() async throws {
        let f = try RegistryFixture()
        let previous = try await f.installFirstCopy()
        f.registry.setFault(.wrongDigest(), modelId: "tiny", endpoint: .download)
        await #expect(throws: APIError.self) { _ = try await f.client().downloadModel("tiny") }
        do {
            _ = try await f.client().downloadModel("tiny")
            Issue.record("a wrong digest must not install")
        } catch APIError.integrityMismatch(let expected, let actual) {
            #expect(expected != actual && actual == f.registry.sha256(modelId: "tiny"))
        }
        #expect(try f.previousIsIntact(previous))
    }

    @Test("a corrupted byte in transit is caught and nothing is installed")
    func corruptedByte() async throws {
        let f = try RegistryFixture()
        let previous = try await f.installFirstCopy()
        f.registry.setFault(.corruptByte(), modelId: "tiny", endpoint: .storage)
        await #expect(throws: APIError.self) { _ = try await f.client().downloadModel("tiny") }
        #expect(try f.previousIsIntact(previous))
    }

    @Test("a body truncated once is resumed with Range and completes", arguments: [true, false])
    func truncatedOnce(declareLength: Bool) async throws {
        let f = try RegistryFixture()
        f.registry.setFault(.truncatedBody(keepBytes: 1_000_000, declareLength: declareLength, count: 1), modelId: "tiny", endpoint: .storage)
        let model = try await f.client().downloadModel("tiny")
        #expect(model.sha256 == f.registry.sha256(modelId: "tiny"))
        let ranged = f.registry.requestLog().filter { $0.origin == .storage }.compactMap { $0.header("Range") }
        #expect(ranged == ["bytes=1000000-"])
        #expect(f.leftovers.isEmpty)
    }

    @Test("a body that is always truncated fails and keeps the previous file")
    func alwaysTruncated() async throws {
        let f = try RegistryFixture()
        let previous = try await f.installFirstCopy()
        f.registry.setFault(.truncatedBody(keepBytes: 1000, declareLength: true), modelId: "tiny", endpoint: .storage)
        await #expect(throws: APIError.self) { _ = try await f.client().downloadModel("tiny") }
        #expect(try f.previousIsIntact(previous))
    }

    @Test("an endless body stops at the declared size and installs nothing")
    func endlessBody() async throws {
        let f = try RegistryFixture()
        let previous = try await f.installFirstCopy()
        f.registry.setFault(.extraBytes(nil, declareLength: false), modelId: "tiny", endpoint: .storage)
        await #expect(throws: APIError.bodyTooLong(expected: Int64(f.registry.size(modelId: "tiny")!))) {
            _ = try await f.client().downloadModel("tiny")
        }
        #expect(try f.previousIsIntact(previous))
    }

    @Test("a body without Content-Length (chunked or close-delimited) downloads with a nil total", arguments: [true, false])
    func noContentLength(chunked: Bool) async throws {
        let f = try RegistryFixture()
        f.registry.setFault(.noContentLength(chunked: chunked), modelId: "tiny", endpoint: .storage)
        let totals = Locked<[Int64?]>([])
        let model = try await f.client().downloadModel("tiny") { _, t in totals.withLock { $0.append(t) } }
        #expect(model.sha256 == f.registry.sha256(modelId: "tiny"))
        #expect(!totals.current.isEmpty && totals.current.allSatisfy { $0 == nil })
    }

    @Test("an expired signed URL is refreshed and the transfer resumes where it stopped", arguments: [403, 410])
    func expiredURL(status: Int) async throws {
        // Storage request 1 ends after 1 MiB of a longer declared body (a rule for this model, fired once); request 2
        // finds the URL expired (a rule for every model, fired once); a fresh URL is resolved
        // and request 3 continues from the bytes on disk.
        let f = try RegistryFixture()
        f.registry.setFault(.truncatedBody(keepBytes: 1 << 20, declareLength: true, count: 1), modelId: "tiny", endpoint: .storage)
        f.registry.setFault(.expiredURL(status: status, count: 1), modelId: nil, endpoint: .storage)
        let model = try await f.client().downloadModel("tiny")
        #expect(model.sha256 == f.registry.sha256(modelId: "tiny"))
        #expect(f.registry.requestLog().filter { $0.origin == .api && $0.path == "/api/download/tiny" }.count == 2)
        let ranges = f.registry.requestLog().filter { $0.origin == .storage }.map { $0.header("Range") }
        #expect(ranges.count == 3 && ranges[0] == nil && ranges[1] != nil && ranges[1] == ranges[2], "ranges: \(ranges)")
    }

    @Test("an already-expired download URL (403 or 410 from storage) is refreshed", arguments: [403, 410])
    func alreadyExpired(status: Int) async throws {
        let f = try RegistryFixture()
        f.registry.setFault(.expiredURL(status: status, count: 1), modelId: "tiny", endpoint: .download)
        let model = try await f.client().downloadModel("tiny")
        #expect(model.sha256 == f.registry.sha256(modelId: "tiny"))
        #expect(f.registry.requestLog().filter { $0.origin == .api && $0.path == "/api/download/tiny" }.count == 2)
    }

    @Test("a storage host that ignores Range is restarted from byte 0")
    func ignoresRange() async throws {
        let f = try RegistryFixture()
        // The first attempt is cut after 1 MiB (a rule for this model, fired once); the resume's
        // Range is then ignored (a rule for every model) and the transfer restarts from byte 0.
        f.registry.setFault(.truncatedBody(keepBytes: 1 << 20, declareLength: true, count: 1), modelId: "tiny", endpoint: .storage)
        f.registry.setFault(.ignoreRange(), modelId: nil, endpoint: .storage)
        let model = try await f.client().downloadModel("tiny")
        #expect(model.sha256 == f.registry.sha256(modelId: "tiny"))
        #expect(try Data(contentsOf: model.localURL) == f.registry.artifactBytes(modelId: "tiny"))
        let ranges = f.registry.requestLog().filter { $0.origin == .storage }.map { $0.header("Range") }
        #expect(ranges == [nil, "bytes=\(1 << 20)-"])
    }

    @Test("refused download URLs and redirects to them are never followed", arguments: [
        RegistryFault.downloadURL(.file), .downloadURL(.remoteHTTP), .downloadURL(.url("ftp://127.0.0.1/x")),
    ])
    func refusedDownloadURL(fault: RegistryFault) async throws {
        let f = try RegistryFixture()
        f.registry.setFault(fault, modelId: "tiny", endpoint: .download)
        do {
            _ = try await f.client().downloadModel("tiny")
            Issue.record("expected a refusal")
        } catch APIError.refusedURL(let reason) {
            #expect(!reason.contains("sig="))
        }
        #expect(f.registry.requestLog().filter { $0.origin == .storage }.isEmpty)
        #expect(f.leftovers.isEmpty)
    }

    @Test("a storage redirect to a refused URL is not followed", arguments: [RegistryFault.RedirectTarget.file, .remoteHTTP])
    func refusedRedirect(target: RegistryFault.RedirectTarget) async throws {
        let f = try RegistryFixture()
        f.registry.setFault(.redirect(to: target), modelId: "tiny", endpoint: .storage)
        await #expect(throws: APIError.self) { _ = try await f.client().downloadModel("tiny") }
        #expect(f.registry.requestLog().filter { $0.origin == .storage }.count == 1)
    }

    @Test("a redirect to another loopback origin is followed without credentials")
    func allowedRedirect() async throws {
        let f = try RegistryFixture()
        f.registry.setFault(.redirect(to: .otherOrigin, count: 1), modelId: "tiny", endpoint: .storage)
        let model = try await f.client().downloadModel("tiny", session: nil)
        #expect(model.sha256 == f.registry.sha256(modelId: "tiny"))
        #expect(f.storageRequestsAreClean)
    }

    @Test("a private model: without a session, with one, and with an expired one")
    func privateModel() async throws {
        let f = try RegistryFixture()
        let client = try f.client()
        await #expect(throws: APIError.sessionRequired) { _ = try await client.downloadModel("private-lora") }
        let backend = try f.client(RegistryFixture.serverKey)
        let session = try await backend.createSession(principalId: "doctor-abc123", ttlSec: 60)
        let model = try await client.downloadModel("private-lora", session: session.token)
        #expect(model.sha256 == f.registry.sha256(modelId: "private-lora"))
        let bearer = f.registry.requestLog().filter { $0.header("Authorization") != nil }
        #expect(bearer.allSatisfy { $0.origin == .api && $0.path == "/api/download/private-lora" })
        f.registry.expireSessions()
        await #expect(throws: APIError.invalidSession) { _ = try await client.downloadModel("private-lora", session: session.token) }
    }

    @Test("cancellation mid-transfer stops promptly, removes the temporary file and keeps the previous one")
    func cancellation() async throws {
        let f = try RegistryFixture()
        let previous = try await f.installFirstCopy()
        f.registry.setFault(.slowDrip(chunkBytes: 16 << 10, intervalMilliseconds: 20), modelId: "tiny", endpoint: .storage)
        let started = Locked(false)
        let client = try f.client()
        let task = Task { try await client.downloadModel("tiny") { _, _ in started.withLock { $0 = true } } }
        while !started.current { try await Task.sleep(nanoseconds: 10_000_000) }
        task.cancel()
        await #expect(throws: CancellationError.self) { _ = try await task.value }
        #expect(try f.previousIsIntact(previous))
    }

    @Test("an overall deadline stops a transfer that trickles in too slowly to finish, keeping the previous file")
    func deadline() async throws {
        let f = try RegistryFixture()
        let previous = try await f.installFirstCopy()
        // 1 KiB every 20 ms: never idle long enough for the stall timeout, hours to finish 3 MiB.
        f.registry.setFault(.slowDrip(chunkBytes: 1024, intervalMilliseconds: 20), modelId: "tiny", endpoint: .storage)
        var options = DownloadOptions()
        options.deadline = 0.5
        do {
            _ = try await f.client().downloadModel("tiny", session: nil, expecting: nil, options: options)
            Issue.record("the deadline must stop the download")
        } catch APIError.transport(let detail) {
            #expect(detail.contains("did not finish within"))
        }
        #expect(try f.previousIsIntact(previous))
    }

    @Test("many concurrent downloads into one store all install (no cleaner removes a live partial file)")
    func concurrentDownloads() async throws {
        var catalog = RegistryCatalog()
        catalog.keys = [RegistryKey(secret: RegistryFixture.publicKey)]
        let ids = (0..<400).map { String(format: "m%03d", $0) }
        for (i, id) in ids.enumerated() {
            catalog.add(model: RegistryModel(modelId: id, version: "1.0.0", artifact: .generated(size: 512 + i, seed: UInt64(i)), platforms: ["linux"]))
        }
        let registry = try DevelopmentRegistry.start(catalog: catalog)
        defer { registry.stop() }
        let storage = ScratchDirectory()
        let client = try ManashikiClient(apiKey: RegistryFixture.publicKey, baseURL: registry.apiBaseURL, storageDirectory: storage.url)
        let failures = await withTaskGroup(of: String?.self) { group in
            var next = 0, failed: [String] = []
            func add() {
                guard next < ids.count else { return }
                let id = ids[next]
                next += 1
                group.addTask {
                    do { _ = try await client.downloadModel(id); return nil } catch { return "\(id): \(error)" }
                }
            }
            for _ in 0..<16 { add() }
            while let result = await group.next() {
                if let result { failed.append(result) }
                add()
            }
            return failed
        }
        #expect(failures.isEmpty, "\(failures.prefix(3))")
        let installed = try FileManager.default.contentsOfDirectory(atPath: storage.url.path).filter { $0.hasSuffix(".bin") }
        #expect(installed.count == ids.count)
    }

    @Test("a re-download after a new version is published replaces the old file")
    func replacesOlderVersion() async throws {
        let f = try RegistryFixture()
        _ = try await f.installFirstCopy()
        try f.registry.publish(modelId: "tiny", version: "1.1.0", artifact: .generated(size: 500_000, seed: 42))
        let model = try await f.client().downloadModel("tiny")
        #expect(model.version == "1.1.0")
        #expect(try Data(contentsOf: f.installed) == f.registry.artifactBytes(modelId: "tiny"))
        #expect(f.leftovers.isEmpty)
    }

    @Test("the catalog, a record, sessions and uploads work over real HTTP")
    func apiRoundTrip() async throws {
        let f = try RegistryFixture()
        let client = try f.client()
        #expect(try await client.listModels().map(\.modelId).sorted() == ["private-lora", "tiny"])
        let record = try await client.getModel("tiny")
        #expect(record.compatibility.platforms == [.linux, .macos] && record.lifecycle.status == .production)
        await #expect(throws: APIError.modelNotFound("nope")) { _ = try await client.getModel("nope") }

        let server = try f.client(RegistryFixture.serverKey)
        let bytes = Data((0..<70_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        let file = f.storage.file("upload.src")
        try bytes.write(to: file)
        let upload = try await server.createModelUpload(ModelUploadRequest(modelId: "tiny", version: "3.0.0", size: Int64(bytes.count),
                                                                            sha256: SHA256Hasher.hash(bytes).hex, visibility: .public))
        try await server.uploadArtifact(upload, from: file)
        #expect(try await client.listModels().first { $0.modelId == "tiny" }?.version == "3.0.0")
        let model = try await client.downloadModel("tiny")
        #expect(try Data(contentsOf: model.localURL) == bytes)
    }
}
