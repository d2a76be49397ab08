import Foundation
import Testing
@testable import Manashiki
import ManashikiTestSupport
import ManashikiCore

/// A scripted registry + storage host on the mock transport.
final class ScriptedStorage: @unchecked Sendable {
    let artifact: Data
    let sha: String
    var ticketSHA: String?
    var ticketSize: Int64?
    var ticketVersion: String? = "1.0.0"
    var downloadURL = "https://cdn.example.test/blob?sig=secret-signature"
    /// Answers the n-th storage request (0-based).
    var storage: @Sendable (Int, HTTPRequest, Data) -> MockResponse = { _, request, data in ScriptedStorage.serve(request, data) }
    private let storageCount = Locked(0)

    init(size: Int = 3 << 20 | 4321, seed: UInt8 = 7) {
        (artifact, sha) = Self.content(size: size, seed: seed)
        ticketSHA = sha
        ticketSize = Int64(size)
    }

    /// Artifacts made once per (size, seed) for the whole run: Swift Testing makes a fixture per
    /// test, and building 9 MiB byte by byte in a debug build took seconds of the cooperative
    /// pool each time, which under CI's load starved the tests' own tasks past their 60 s bounds.
    private static let made = Locked([[Int]: (Data, String)]())

    private static func content(size: Int, seed: UInt8) -> (Data, String) {
        if let known = made.withLock({ $0[[size, Int(seed)]] }) { return known }
        var data = Data(count: size)
        data.withUnsafeMutableBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            for i in 0..<size { bytes[i] = UInt8(truncatingIfNeeded: i &* 31 &+ Int(seed)) }
        }
        let entry = (data, SHA256Hasher.hash(data).hex)
        made.withLock { $0[[size, Int(seed)]] = entry }
        return entry
    }

    var handler: MockTransport.Handler {
        { [self] request in
            if request.url.host == "models.example.test" {
                var fields: [String] = [#""downloadUrl": "\#(downloadURL)""#]
                if let s = ticketSHA { fields.append(#""sha256": "\#(s)""#) }
                if let s = ticketSize { fields.append(#""size": \#(s)"#) }
                if let v = ticketVersion { fields.append(#""version": "\#(v)""#) }
                fields.append(#""expiresIn": 300"#)
                return .json(200, "{" + fields.joined(separator: ", ") + "}")
            }
            let n = storageCount.withLock { n in defer { n += 1 }; return n }
            return storage(n, request, artifact)
        }
    }

    /// Serves `data` honouring `Range: bytes=N-`.
    static func serve(_ request: HTTPRequest, _ data: Data) -> MockResponse {
        if let range = request.headers["Range"], range.hasPrefix("bytes="), let start = Int(range.dropFirst(6).dropLast()) {
            guard start < data.count else { return MockResponse(status: 416, headers: ["Content-Range": "bytes */\(data.count)"]) }
            var r = MockResponse.bytes(data.subdata(in: start..<data.count), status: 206)
            r.head.headers["Content-Range"] = "bytes \(start)-\(data.count - 1)/\(data.count)"
            return r
        }
        return .bytes(data)
    }
}

@Suite("downloadModel over a mock transport")
struct DownloadModelTests {
    let dir = ScratchDirectory()

    func client(_ s: ScriptedStorage) throws -> (ManashikiClient, MockTransport) {
        try makeClient(storage: dir.url, s.handler)
    }

    /// Stray files in the partial folder (a kept partial with a valid sidecar is not one).
    func leftovers() -> [String] { PartialFolder.strays(in: dir.url) }

    func installPrevious(_ content: String = "previous verified model") throws -> (Data, UInt64) {
        let data = Data(content.utf8)
        try data.write(to: dir.file("tiny.bin"))
        let inode = try FileManager.default.attributesOfItem(atPath: dir.file("tiny.bin").path)[.systemFileNumber] as! UInt64
        return (data, inode)
    }

    func expectPreviousIntact(_ previous: (Data, UInt64)) throws {
        #expect(try Data(contentsOf: dir.file("tiny.bin")) == previous.0)
        let inode = try FileManager.default.attributesOfItem(atPath: dir.file("tiny.bin").path)[.systemFileNumber] as! UInt64
        #expect(inode == previous.1)
        #expect(leftovers().isEmpty)
    }

    @Test("a download streams, reports progress, verifies and installs <id>.bin")
    func success() async throws {
        let s = ScriptedStorage()
        let (client, mock) = try client(s)
        let reports = Locked<[(Int64, Int64?)]>([])
        let model = try await client.downloadModel("tiny", session: "mks_token") { w, t in reports.withLock { $0.append((w, t)) } }
        #expect(model.localURL == dir.file("tiny.bin"))
        #expect(model.sha256 == s.sha && model.verified && model.size == Int64(s.artifact.count) && model.version == "1.0.0")
        #expect(try Data(contentsOf: model.localURL) == s.artifact)
        let r = reports.current
        #expect(r.count >= 4) // three full MiB blocks and the rest (plus any timed reports)
        #expect(r.map(\.0) == r.map(\.0).sorted())
        #expect(r.last?.0 == Int64(s.artifact.count) && r.allSatisfy { $0.1 == Int64(s.artifact.count) })
        #expect(leftovers().isEmpty)

        let api = mock.requests[0], storage = mock.requests[1]
        #expect(api.url.path == "/api/download/tiny")
        #expect(api.headers["Authorization"] == "Bearer mks_token")
        #expect(storage.headers["X-API-Key"] == nil && storage.headers["Authorization"] == nil)
        #expect(storage.headers["Accept-Encoding"] == "identity")
    }

    @Test("chunks of any size, short and large mixed, install exactly the artifact", arguments: [
        [1, 300 << 10, 1 << 20, 5, 2 << 20],
        [256 << 10],
        [(256 << 10) - 1, (1 << 20) + 1],
        [4096],
        [4 << 20],
    ])
    func chunkSizes(pattern: [Int]) async throws {
        let s = ScriptedStorage()
        s.storage = { _, _, data in
            var chunks: [Data] = [], offset = 0, i = 0
            while offset < data.count {
                let n = min(pattern[i % pattern.count], data.count - offset)
                chunks.append(data.subdata(in: offset..<(offset + n)))
                offset += n
                i += 1
            }
            return MockResponse(status: 200, headers: ["Content-Length": String(data.count)], chunks: chunks)
        }
        let (client, _) = try client(s)
        let model = try await client.downloadModel("tiny")
        #expect(model.sha256 == s.sha && model.verified)
        #expect(try Data(contentsOf: model.localURL) == s.artifact)
        #expect(leftovers().isEmpty)
    }

    @Test("without a session no Authorization header is sent")
    func noSessionNoBearer() async throws {
        let s = ScriptedStorage(size: 10)
        let (client, mock) = try client(s)
        _ = try await client.downloadModel("tiny")
        #expect(mock.requests.allSatisfy { $0.headers["Authorization"] == nil })
    }

    @Test("a digest mismatch throws integrityMismatch and keeps the previous file")
    func mismatch() async throws {
        let previous = try installPrevious()
        let s = ScriptedStorage()
        s.ticketSHA = String(repeating: "0", count: 64)
        let (client, _) = try client(s)
        await #expect(throws: APIError.integrityMismatch(expected: String(repeating: "0", count: 64), actual: s.sha)) {
            _ = try await client.downloadModel("tiny")
        }
        try expectPreviousIntact(previous)
    }

    @Test("a corrupted byte is caught by the digest")
    func corruptedByte() async throws {
        let previous = try installPrevious()
        let s = ScriptedStorage()
        s.storage = { _, _, data in
            var bad = data
            bad[12345] ^= 0x01
            return .bytes(bad)
        }
        let (client, _) = try client(s)
        await #expect(throws: APIError.self) { _ = try await client.downloadModel("tiny") }
        try expectPreviousIntact(previous)
    }

    @Test("a body longer than the declared size stops at the first excess byte")
    func tooLong() async throws {
        let previous = try installPrevious()
        let s = ScriptedStorage(size: 1000)
        s.storage = { _, _, data in
            // No Content-Length, then endless data: 1000 valid bytes and more.
            MockResponse(status: 200, chunks: [data, Data(repeating: 0, count: 1), Data(repeating: 0, count: 1 << 20)])
        }
        let (client, _) = try client(s)
        await #expect(throws: APIError.bodyTooLong(expected: 1000)) { _ = try await client.downloadModel("tiny") }
        try expectPreviousIntact(previous)
    }

    @Test("a Content-Length larger than the registry's size is refused before reading")
    func contentLengthDisagrees() async throws {
        let s = ScriptedStorage(size: 1000)
        s.storage = { _, _, data in MockResponse(status: 200, headers: ["Content-Length": "5000"], chunks: [data]) }
        let (client, _) = try client(s)
        await #expect(throws: APIError.bodyTooLong(expected: 1000)) { _ = try await client.downloadModel("tiny") }
        #expect(leftovers().isEmpty)
    }

    @Test("a transfer cut short resumes with Range from the bytes already on disk")
    func resumeAfterCut() async throws {
        let s = ScriptedStorage()
        s.storage = { n, request, data in
            if n == 0 {
                let half = data.prefix(1_500_000)
                return MockResponse(status: 200, headers: ["Content-Length": String(data.count)], chunks: [Data(half)],
                                    failAfterBody: .transport("the connection to cdn.example.test was lost"))
            }
            return ScriptedStorage.serve(request, data)
        }
        let (client, mock) = try client(s)
        let model = try await client.downloadModel("tiny")
        #expect(try Data(contentsOf: model.localURL) == s.artifact)
        #expect(mock.requests.last?.headers["Range"] == "bytes=1500000-")
    }

    @Test("a 416 to a resumed range (the host's object disagrees with the bytes kept) starts over from byte 0 and verifies")
    func rangeNotSatisfiableRestarts() async throws {
        let s = ScriptedStorage()
        s.storage = { n, request, data in
            switch n {
            case 0:
                return MockResponse(status: 200, headers: ["Content-Length": String(data.count)], chunks: [Data(data.prefix(1_500_000))],
                                    failAfterBody: .transport("the connection to cdn.example.test was lost"))
            case 1:
                return MockResponse(status: 416, headers: ["Content-Range": "bytes */1000"])
            default:
                return ScriptedStorage.serve(request, data)
            }
        }
        let (client, mock) = try client(s)
        let model = try await client.downloadModel("tiny")
        #expect(model.verified && model.sha256 == s.sha)
        #expect(try Data(contentsOf: model.localURL) == s.artifact)
        let storage = mock.requests.filter { $0.url.host == "cdn.example.test" }
        #expect(storage.count == 3)
        #expect(storage.map { $0.headers["Range"] } == [nil, "bytes=1500000-", nil])
        #expect(leftovers().isEmpty)
    }

    @Test("an expired signed URL (403, 410) is refreshed and the transfer continues from where it stopped", arguments: [403, 410])
    func expiredURL(status: Int) async throws {
        let s = ScriptedStorage()
        s.storage = { n, request, data in
            switch n {
            case 0: return MockResponse(status: 200, headers: ["Content-Length": String(data.count)], chunks: [Data(data.prefix(2 << 20))], failAfterBody: .transport("reset"))
            case 1: return MockResponse(status: status)
            default: return ScriptedStorage.serve(request, data)
            }
        }
        let (client, mock) = try client(s)
        let model = try await client.downloadModel("tiny")
        #expect(try Data(contentsOf: model.localURL) == s.artifact)
        #expect(mock.requests.filter { $0.url.path == "/api/download/tiny" }.count == 2)
        #expect(mock.requests.last?.headers["Range"] == "bytes=\(2 << 20)-")
    }

    @Test("a server that ignores Range (200 to a ranged request) is restarted from byte 0")
    func ignoresRange() async throws {
        let s = ScriptedStorage()
        s.storage = { n, _, data in
            n == 0 ? MockResponse(status: 200, headers: ["Content-Length": String(data.count)], chunks: [Data(data.prefix(1_000_000))], failAfterBody: .transport("reset"))
                   : .bytes(data) // ignores Range
        }
        let (client, mock) = try client(s)
        let model = try await client.downloadModel("tiny")
        #expect(model.sha256 == s.sha)
        #expect(try Data(contentsOf: model.localURL) == s.artifact)
        #expect(mock.requests.last?.headers["Range"] == "bytes=1000000-")
    }

    @Test("a persistently short body fails after bounded resumes and keeps the previous file")
    func persistentlyShort() async throws {
        let previous = try installPrevious()
        let s = ScriptedStorage(size: 1000)
        s.storage = { _, _, data in MockResponse(status: 200, chunks: [Data(data.prefix(10))]) }
        let (client, mock) = try client(s)
        var options = DownloadOptions()
        options.resumeBackoff = 0.001
        await #expect(throws: APIError.self) { _ = try await client.downloadModel("tiny", session: nil, expecting: nil, options: options) }
        #expect(mock.requests.count == 2 + options.maxResumes)
        try expectPreviousIntact(previous)
    }

    @Test("download URLs with refused schemes or hosts are never connected to", arguments: [
        "file:///etc/passwd", "ftp://cdn.example.test/blob", "http://cdn.example.test/blob", "data:application/octet-stream;base64,AAAA",
        "https://user:pass@cdn.example.test/blob", "/relative/blob", "javascript:alert(1)",
    ])
    func refusedURLs(url: String) async throws {
        let s = ScriptedStorage(size: 10)
        s.downloadURL = url
        let (client, mock) = try client(s)
        do {
            _ = try await client.downloadModel("tiny")
            Issue.record("expected a refusal")
        } catch let error as APIError {
            guard case .refusedURL = error else { Issue.record("unexpected \(error)"); return }
            #expect(!error.localizedDescription.contains("sig="))
        }
        #expect(mock.requests.count == 1) // only the API request
    }

    @Test("a redirect to a refused URL is not followed; one to https is followed without credentials")
    func redirects() async throws {
        let s = ScriptedStorage(size: 100)
        s.storage = { n, request, data in
            n == 0 ? MockResponse(status: 302, headers: ["Location": "https://mirror.example.test/blob2"]) : ScriptedStorage.serve(request, data)
        }
        let (client, mock) = try client(s)
        _ = try await client.downloadModel("tiny", session: "mks_t")
        #expect(mock.requests.last?.url.host == "mirror.example.test")
        #expect(mock.requests.dropFirst().allSatisfy { $0.headers["Authorization"] == nil && $0.headers["X-API-Key"] == nil })

        for target in ["file:///etc/passwd", "http://evil.example/x", "ftp://x/y"] {
            let bad = ScriptedStorage(size: 100)
            bad.storage = { _, _, _ in MockResponse(status: 302, headers: ["Location": target]) }
            let (c, m) = try makeClient(storage: dir.url, bad.handler)
            await #expect(throws: APIError.self) { _ = try await c.downloadModel("tiny") }
            #expect(m.requests.count == 2)
        }
    }

    @Test("a private model without a session fails with sessionRequired")
    func sessionRequired() async throws {
        let (client, _) = try makeClient(storage: dir.url) { _ in .error(401, code: "session_required") }
        await #expect(throws: APIError.sessionRequired) { _ = try await client.downloadModel("private-lora") }
        await #expect(throws: APIError.invalidSession) { _ = try await client.downloadModel("private-lora", session: "bad token\r\nX: y") }
    }

    @Test("a re-download replaces the older version")
    func replaces() async throws {
        _ = try installPrevious("version one")
        let s = ScriptedStorage(size: 5000)
        let (client, _) = try client(s)
        _ = try await client.downloadModel("tiny")
        #expect(try Data(contentsOf: dir.file("tiny.bin")) == s.artifact)
    }

    @Test("without Content-Length progress reports a nil total")
    func noContentLength() async throws {
        let s = ScriptedStorage(size: 2 << 20)
        s.storage = { _, _, data in MockResponse(status: 200, chunks: [data]) }
        let (client, _) = try client(s)
        let totals = Locked<[Int64?]>([])
        _ = try await client.downloadModel("tiny") { _, t in totals.withLock { $0.append(t) } }
        #expect(!totals.current.isEmpty && totals.current.allSatisfy { $0 == nil })
    }

    @Test("without a registry digest the download is installed unverified")
    func noDigest() async throws {
        let s = ScriptedStorage(size: 100)
        s.ticketSHA = nil
        let (client, _) = try client(s)
        let model = try await client.downloadModel("tiny")
        #expect(!model.verified && model.sha256 == s.sha)
    }

    @Test("an expectation that disagrees with the ticket fails before any byte moves")
    func expectationMismatch() async throws {
        let s = ScriptedStorage(size: 100)
        let (client, mock) = try client(s)
        await #expect(throws: APIError.self) {
            _ = try await client.downloadModel("tiny", session: nil, expecting: ExpectedArtifact(version: "0.9.0"))
        }
        #expect(mock.requests.count == 1)
    }

    @Test("a symlink at <id>.bin is replaced, never written through")
    func symlinkTarget() async throws {
        let outside = ScratchDirectory()
        let victim = outside.file("victim")
        try Data("do not touch".utf8).write(to: victim)
        try FileManager.default.createSymbolicLink(at: dir.file("tiny.bin"), withDestinationURL: victim)
        let s = ScriptedStorage(size: 100)
        let (client, _) = try client(s)
        _ = try await client.downloadModel("tiny")
        #expect(try Data(contentsOf: victim) == Data("do not touch".utf8))
        let type = try FileManager.default.attributesOfItem(atPath: dir.file("tiny.bin").path)[.type] as? FileAttributeType
        #expect(type == .typeRegular)
        #expect(try Data(contentsOf: dir.file("tiny.bin")) == s.artifact)
    }

    @Test("a storage directory that is a symlink is refused")
    func symlinkStorage() async throws {
        let real = ScratchDirectory()
        let link = dir.file("link")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: real.url)
        let s = ScriptedStorage(size: 100)
        let (client, mock) = try makeClient(storage: link, s.handler)
        await #expect(throws: APIError.self) { _ = try await client.downloadModel("tiny") }
        #expect(mock.requests.isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: real.url.path).isEmpty)
    }

    @Test("partial files nobody holds are removed when the store is opened; a held one stays")
    func abandonedPartials() async throws {
        let partial = dir.url.appendingPathComponent(".manashiki/partial")
        try FileManager.default.createDirectory(at: partial, withIntermediateDirectories: true)
        try Data("killed mid-download".utf8).write(to: partial.appendingPathComponent("tiny.0123456789abcdef.partial"))
        let held = partial.appendingPathComponent("other.fedcba9876543210.partial")
        try Data("live".utf8).write(to: held)
        let fd = open(held.path, O_RDONLY)
        defer { close(fd) }
        #expect(flock(fd, LOCK_EX | LOCK_NB) == 0)
        let s = ScriptedStorage(size: 100)
        let (client, _) = try client(s)
        _ = try await client.downloadModel("tiny")
        #expect(leftovers() == ["other.fedcba9876543210.partial"])
    }

    @Test("the session token is not carried on an API redirect to another path")
    func bearerNotRedirected() async throws {
        let s = ScriptedStorage(size: 100)
        let (client, mock) = try makeClient(storage: dir.url) { request in
            if request.url.path == "/api/download/tiny" { return MockResponse(status: 307, headers: ["Location": "/elsewhere/tiny"]) }
            return try await s.handler(request)
        }
        _ = try? await client.downloadModel("tiny", session: "mks_token")
        #expect(mock.requests.first?.headers["Authorization"] == "Bearer mks_token")
        #expect(mock.requests.dropFirst().allSatisfy { $0.headers["Authorization"] == nil })
    }

    @Test("cancellation before the transfer ends removes the temporary file and keeps the previous one")
    func cancellation() async throws {
        let previous = try installPrevious()
        let s = ScriptedStorage(size: 100)
        s.storage = { _, _, _ in MockResponse(status: 200) }
        let (client, _) = try makeClient(storage: dir.url) { request in
            if request.url.host == "cdn.example.test" { try await Task.sleep(nanoseconds: 30_000_000_000) }
            return try await s.handler(request)
        }
        let task = Task { try await client.downloadModel("tiny") }
        try await Task.sleep(nanoseconds: 200_000_000)
        task.cancel()
        await #expect(throws: CancellationError.self) { _ = try await task.value }
        try expectPreviousIntact(previous)
    }
}
