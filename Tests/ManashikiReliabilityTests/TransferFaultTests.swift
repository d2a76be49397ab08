#if os(Linux) || os(macOS) // child processes (ManashikiProcess) exist on Linux and macOS only
import Foundation
import ManashikiTestSupport
import Testing
import Manashiki
import ManashikiSync
import ManashikiRegistry
import ManashikiCore

/// Damaged transfers from the storage host. Cases already covered elsewhere:
/// a truncated body resumed with Range and an ignored Range
/// (ManashikiTests DownloadIntegrationTests.truncatedOnce / ignoresRange).
@Suite("Reliability: transfer faults")
struct TransferFaultTests {
    @Test("a flipped byte: integrity error for that model, previous file kept, others synced")
    func flippedByte() async throws {
        let f = try SyncFixture()
        try await f.expectIsolatedFailure(messageContains: ["sha-256"]) { $0.registry.setFault(.corruptByte(), modelId: "beta", endpoint: .storage) }
    }

    @Test("a body cut short, with and without Content-Length, every attempt: the model fails cleanly", arguments: [true, false])
    func truncated(declareLength: Bool) async throws {
        let f = try SyncFixture()
        try await f.expectIsolatedFailure(messageContains: ["transfer"]) {
            $0.registry.setFault(.truncatedBody(keepBytes: 10_000, declareLength: declareLength), modelId: "beta", endpoint: .storage)
        }
    }

    @Test("an endless body stops at size + 1 byte: bodyTooLong, nothing installed, the origin stops sending")
    func endlessBody() async throws {
        let scripted = try ScriptedRegistry(models: [.init(id: "tiny", version: "1.0.0", bytes: Data(repeating: 7, count: 100_000))])
        let scratch = ScratchDirectory("transfer-fault")
        let client = try ManashikiClient(apiKey: Keys.publishable, baseURL: scripted.baseURL, storageDirectory: scratch.url)
        _ = try await client.downloadModel("tiny")
        let before = StoreSnapshot.capture(scratch.url)
        scripted.setOverride { request, _ in
            guard request.path.hasPrefix("/blobs/") else { return nil }
            // 200 without a length, then zeros for up to 1 GiB unless the client hangs up.
            return [.send(Data("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n".utf8)), .endless(chunk: Data(count: 64 << 10), limit: 1 << 30)]
        }
        await #expect(throws: APIError.bodyTooLong(expected: 100_000)) { _ = try await client.downloadModel("tiny") }
        Invariants.expectStandardOutcome(store: scratch.url, before: before, failed: ["tiny"])
        // Disk stays bounded (the partial file is gone; the error is raised at byte size+1) and
        // the client hung up long before the 1 GiB the origin was willing to send.
        try? await Task.sleep(for: .milliseconds(200))
        #expect(scripted.origin.bytesSentByEndlessSteps < 64 << 20, "sent \(scripted.origin.bytesSentByEndlessSteps) bytes")
    }

    @Test("an endless body through the binary: that model fails, the others sync")
    func endlessBodyCLI() async throws {
        let f = try SyncFixture()
        try await f.expectIsolatedFailure(messageContains: ["more than"]) { $0.registry.setFault(.extraBytes(nil, declareLength: false), modelId: "beta", endpoint: .storage) }
    }

    /// Storage answers whose Content-Length is wrong: larger than the registry's size, smaller,
    /// negative, absurdly large, or repeated with different values.
    static let badLengths: [(String, String)] = [
        ("larger than the registry's size", "Content-Length: 100010"),
        ("smaller than the registry's size", "Content-Length: 99990"),
        ("negative", "Content-Length: -5"),
        ("huge", "Content-Length: 99999999999999999999999"),
        ("repeated with different values", "Content-Length: 100000\r\nContent-Length: 100001"),
    ]

    @Test("a Content-Length that disagrees, is negative, huge or repeated: refused, nothing installed", arguments: 0..<5)
    func badContentLength(index: Int) async throws {
        let (label, header) = Self.badLengths[index]
        let bytes = Data((0..<100_000).map { UInt8($0 % 251) })
        let scripted = try ScriptedRegistry(models: [.init(id: "tiny", version: "1.0.0", bytes: bytes)])
        let scratch = ScratchDirectory("transfer-fault")
        let client = try ManashikiClient(apiKey: Keys.publishable, baseURL: scripted.baseURL, storageDirectory: scratch.url)
        _ = try await client.downloadModel("tiny")
        let before = StoreSnapshot.capture(scratch.url)
        // The body is the real artifact with one byte changed at the end, so an installation
        // would be detectable whatever the client believes about the length.
        var served = bytes
        served[served.count - 1] ^= 0xFF
        if label.hasPrefix("larger") { served += Data(count: 10) }
        if label.hasPrefix("smaller") { served = served.prefix(99_990) }
        let body = served
        scripted.setOverride { request, _ in
            guard request.path.hasPrefix("/blobs/") else { return nil }
            return [.send(Data("HTTP/1.1 200 OK\r\n\(header)\r\nConnection: close\r\n\r\n".utf8) + body)]
        }
        do {
            let model = try await client.downloadModel("tiny")
            Issue.record("\(label): installed \(model.size) bytes")
        } catch let error as APIError {
            #expect(!error.localizedDescription.isEmpty)
        }
        Invariants.expectStandardOutcome(store: scratch.url, before: before, failed: ["tiny"])
    }

    @Test("a slow drip below the stall timeout still completes with the exact bytes")
    func slowDripCompletes() async throws {
        let f = try SyncFixture(models: ["alpha"])
        f.registry.setFault(.slowDrip(chunkBytes: 8 << 10, intervalMilliseconds: 20), modelId: "alpha", endpoint: .storage)
        var options = DownloadOptions()
        options.idleTimeout = 2
        _ = try await f.client().downloadModel("alpha", session: nil, expecting: nil, options: options)
        #expect(f.isInstalledIntact("alpha"))
        #expect(Invariants.partials(f.store).isEmpty)
    }

    @Test("headers then silence: the stall timeout ends the transfer, resumes are bounded, the previous file stays")
    func stall() async throws {
        let f = try SyncFixture(models: ["alpha"])
        _ = try await f.client().downloadModel("alpha")
        let before = StoreSnapshot.capture(f.store)
        try f.publishNewVersion("alpha", version: "1.1.0", seed: 77)
        f.registry.setFault(.stall(afterBytes: 1000), modelId: "alpha", endpoint: .storage)
        var options = DownloadOptions()
        options.idleTimeout = 1
        options.maxResumes = 1
        options.resumeBackoff = 0.05
        await #expect(throws: APIError.self) { _ = try await f.client().downloadModel("alpha", session: nil, expecting: nil, options: options) }
        Invariants.expectStandardOutcome(store: f.store, before: before, failed: ["alpha"])
        // one first attempt + one resume, then it gave up
        #expect(f.registry.requestLog().filter { $0.origin == .storage }.count == 3) // initial install + 2 stalled attempts
    }

    @Test("an overall deadline (the caller cancels a never-ending drip): CancellationError, previous kept, no partial")
    func overallDeadline() async throws {
        let f = try SyncFixture(models: ["beta"])
        _ = try await f.client().downloadModel("beta")
        let before = StoreSnapshot.capture(f.store)
        try f.publishNewVersion("beta", version: "1.1.0", seed: 78)
        f.registry.setFault(.slowDrip(chunkBytes: 512, intervalMilliseconds: 50), modelId: "beta", endpoint: .storage)
        let client = try f.client()
        let task = Task { try await client.downloadModel("beta") }
        // The transfer is under way (the drip needs ~13 s for the whole body)…
        for _ in 0..<500 where f.registry.openDownloads == 0 { try await Task.sleep(for: .milliseconds(10)) }
        #expect(f.registry.openDownloads == 1)
        try await Task.sleep(for: .milliseconds(300))
        task.cancel() // …when the caller's deadline fires.
        await #expect(throws: CancellationError.self) { _ = try await task.value }
        Invariants.expectStandardOutcome(store: f.store, before: before, failed: ["beta"])
    }

    @Test("503 twice then 200 on the storage host: resumed, installed once with the exact bytes")
    func storage503Twice() async throws {
        let f = try SyncFixture(models: ["beta"])
        f.registry.setFault(.status(503, count: 2), modelId: "beta", endpoint: .storage)
        _ = try await f.client().downloadModel("beta")
        #expect(f.isInstalledIntact("beta"))
        #expect(f.registry.requestLog().filter { $0.origin == .storage }.count == 3)
        #expect(Invariants.partials(f.store).isEmpty)
    }

    @Test("503 twice then 200 on /api/download: the sync retries with backoff and succeeds")
    func api503Twice() async throws {
        let f = try SyncFixture(models: ["alpha", "beta"])
        f.registry.setFault(.status(503, count: 2), modelId: "beta", endpoint: .download)
        let sleeps = Locked<[Duration]>([])
        let report = try await reconcile(f, maxAttempts: 4, sleeps: sleeps)
        #expect(report.outcome == .changed, "\(report.summary)")
        #expect(f.isInstalledIntact("alpha") && f.isInstalledIntact("beta"))
        #expect(sleeps.current.count == 2)
        #expect(f.registry.requestLog().filter { $0.path == "/api/download/beta" }.count == 3)
    }

    /// Retry-After values: delta-seconds, an HTTP date ~25 s ahead, absurdly large, garbage.
    static let retryAfters: [(String, ClosedRange<Int>)] = [
        // Retry-After is a minimum; up to half of it again is added at random (RetryPolicy.retryAfterSpread).
        ("7", 7...10),
        ("DATE+25", 5...39),  // parsed as a date (not backoff), under the cap even if the run starts late
        ("99999999999999999999", 30...45),   // capped at maxRetryAfter (30 s here), then spread
        ("soon, maybe", 0...3),              // unparseable: ordinary backoff (base 1 s, max +25 % jitter… capped)
    ]

    @Test("429 with Retry-After in seconds, as a date, absurdly large or garbage: honoured within the cap", arguments: 0..<4)
    func rateLimited(index: Int) async throws {
        let (raw, range) = Self.retryAfters[index]
        // A date is formatted when the answer is sent (25 s ahead), not when the test starts: on
        // a loaded machine the request can come many seconds later.
        let header: @Sendable () -> String = {
            guard raw == "DATE+25" else { return raw }
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "GMT")
            formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
            return formatter.string(from: Date().addingTimeInterval(25))
        }
        let scripted = try ScriptedRegistry(models: [.init(id: "beta", version: "1.0.0", bytes: Data(repeating: 3, count: 5000))])
        let served = Locked(0)
        let sent = Locked(raw)
        scripted.setOverride { request, _ in
            guard request.path == "/api/download/beta", served.withLock({ $0 += 1; return $0 }) == 1 else { return nil }
            let value = header()
            sent.withLock { $0 = value }
            return ScriptedOrigin.json(#"{"error": {"code": "rate_limited", "message": "slow down"}}"#, status: 429, headers: ["Retry-After: \(value)"])
        }
        let scratch = ScratchDirectory("transfer-fault")
        let sleeps = Locked<[Duration]>([])
        let report = try await reconcile(baseURL: scripted.baseURL, store: scratch.url, models: ["beta"], maxAttempts: 3, sleeps: sleeps)
        #expect(report.outcome == .changed, "\(report.summary)")
        let waits = sleeps.current
        #expect(waits.count == 1)
        if let wait = waits.first {
            let seconds = Int(wait.components.seconds)
            #expect(range.contains(seconds), "Retry-After \(sent.current) → waited \(wait)")
        }
    }

    @Test("429 then 404: a hard failure after one retry, no retry loop, the other model synced")
    func rateLimitedThenNotFound() async throws {
        let scripted = try ScriptedRegistry(models: [.init(id: "alpha", version: "1.0.0", bytes: Data(repeating: 1, count: 4000)),
                                                     .init(id: "beta", version: "1.0.0", bytes: Data(repeating: 2, count: 4000))])
        let served = Locked(0)
        scripted.setOverride { request, _ in
            guard request.path == "/api/download/beta" else { return nil }
            if served.withLock({ $0 += 1; return $0 }) == 1 {
                return ScriptedOrigin.json(#"{"error": {"code": "rate_limited", "message": "slow down"}}"#, status: 429, headers: ["Retry-After: 1"])
            }
            return ScriptedOrigin.json(#"{"error": {"code": "not_found", "message": "gone"}}"#, status: 404)
        }
        let scratch = ScratchDirectory("transfer-fault")
        let sleeps = Locked<[Duration]>([])
        let report = try await reconcile(baseURL: scripted.baseURL, store: scratch.url, models: ["alpha", "beta"], maxAttempts: 5, sleeps: sleeps)
        #expect(report.outcome == .partialFailure)
        #expect(report["beta"]?.failure?.isRetryable == false)
        #expect(report["beta"]?.failure?.apiError == .modelNotFound("beta"))
        #expect(sleeps.current.count == 1)
        #expect(sleeps.current.allSatisfy { $0 >= .seconds(1) && $0 <= .seconds(2) }, "Retry-After 1 plus a spread of at most 1 s")
        #expect(scripted.requests.filter { $0.path == "/api/download/beta" }.count == 2)
        #expect(FileManager.default.contents(atPath: scratch.file("alpha.bin").path) == Data(repeating: 1, count: 4000))
    }
}

/// Runs a Reconciler on the fixture's registry with recorded (not slept) retries.
func reconcile(_ f: SyncFixture, maxAttempts: Int, sleeps: Locked<[Duration]>) async throws -> SyncReport {
    try await reconcile(baseURL: f.registry.apiBaseURL, store: f.store, models: nil, manifestURL: f.manifestURL, maxAttempts: maxAttempts, sleeps: sleeps)
}

/// Runs a Reconciler with recorded (not slept) retries, from a manifest file or one written for `models`.
func reconcile(baseURL: URL, store: URL, models: [String]?, manifestURL: URL? = nil, maxAttempts: Int, sleeps: Locked<[Duration]>,
               session: String? = nil) async throws -> SyncReport {
    let url: URL
    if let manifestURL { url = manifestURL } else {
        url = store.deletingLastPathComponent().appendingPathComponent("manifest-\(UUID().uuidString.prefix(6)).json")
        let entries = (models ?? []).map { #"{"id": "\#($0)"}"# }
        let text = """
        {"schemaVersion": 1, "registry": {"baseURL": "\(baseURL.absoluteString)"},
         "store": {"directory": "\(store.path)", "concurrency": 2},
         "device": {"platform": "linux"}, "policies": {"checkCompatibility": false},
         "models": [\(entries.joined(separator: ", "))]}
        """
        try Data(text.utf8).write(to: url)
    }
    let manifest = try Manifest.load(contentsOf: url)
    var options = Reconciler.Options(lockTimeout: .seconds(5))
    options.retry = RetryPolicy(maxAttempts: maxAttempts, maxRetryAfter: .seconds(30), sleep: { d in sleeps.withLock { $0.append(d) } })
    options.environment = SyncEnvironment(variables: [:])
    return try await Reconciler(manifest: manifest, apiKey: Keys.publishable, options: options).run()
}
#endif
