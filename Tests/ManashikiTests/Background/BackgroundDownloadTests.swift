import Foundation
import Testing
@testable import Manashiki
import ManashikiTestSupport
import ManashikiCore

/// Background transfers: the system (a background URLSession, Background Assets) downloads the
/// file; the app hands it to the SDK, which verifies and installs it through the same path as
/// every download. Here "the system" is a file written by the test.
@Suite("Background transfers: a file handed over by the system")
struct BackgroundDownloadTests {
    let dir = ScratchDirectory()

    /// What the system would have downloaded, at a location of its own.
    func handOver(_ data: Data) throws -> URL {
        let location = dir.file("system-tmp-\(UUID().uuidString).download")
        try data.write(to: location)
        return location
    }

    func leftovers() -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: dir.url.appendingPathComponent(".manashiki/partial").path)) ?? []
    }

    func installPrevious() throws -> (Data, UInt64) {
        let data = Data("previous verified model".utf8)
        try data.write(to: dir.file("tiny.bin"))
        return (data, try inode(dir.file("tiny.bin")))
    }

    func inode(_ url: URL) throws -> UInt64 {
        try FileManager.default.attributesOfItem(atPath: url.path)[.systemFileNumber] as! UInt64
    }

    @Test("the request for the system carries no credentials; its ticket holds the registry's digest and survives as taskDescription")
    func request() async throws {
        let s = ScriptedStorage()
        let (client, mock) = try makeClient(storage: dir.url, s.handler)
        let (request, ticket) = try await client.backgroundDownloadRequest("tiny", session: "mks_session_token_abcdefgh")
        #expect(request.url?.absoluteString == s.downloadURL)
        #expect(request.value(forHTTPHeaderField: "X-API-Key") == nil)
        #expect(request.value(forHTTPHeaderField: "Authorization") == nil)
        #expect(ticket.isSameArtifact(as: BackgroundDownloadTicket(modelId: "tiny", sha256: s.sha, size: s.ticketSize, version: "1.0.0")))
        #expect(ticket.version == "1.0.0" && ticket.retries == 0)
        // expiresIn 300: the URL's end is kept, so stale resume data is not used after it.
        let left = try #require(ticket.urlExpiresAt).timeIntervalSinceNow
        #expect(left > 290 && left <= 300)
        let decoded = try #require(BackgroundDownloadTicket(taskDescription: ticket.taskDescription))
        #expect(decoded.isSameArtifact(as: ticket) && decoded.retries == ticket.retries)
        #expect(!ticket.taskDescription.contains("sig=") && !ticket.taskDescription.contains("mks_session"))
        #expect(BackgroundDownloadTicket(taskDescription: "not ours") == nil)
        #expect(BackgroundDownloadTicket(taskDescription: nil) == nil)
        // Only the API request was made, with the session as Bearer there.
        #expect(mock.requests.map(\.url.host) == ["models.example.test"])
        #expect(mock.requests.first?.headers["Authorization"] == "Bearer mks_session_token_abcdefgh")
    }

    @Test("without a digest from the registry nothing is handed to the system (it could not be verified)")
    func noDigest() async throws {
        let s = ScriptedStorage()
        s.ticketSHA = nil
        let (client, _) = try makeClient(storage: dir.url, s.handler)
        await #expect(throws: APIError.self) { _ = try await client.backgroundDownloadRequest("tiny") }
    }

    @Test("a file the system downloaded is hashed, verified and installed atomically as <id>.bin")
    func installs() async throws {
        let s = ScriptedStorage()
        let (client, _) = try makeClient(storage: dir.url, s.handler)
        let previous = try installPrevious()
        let (_, ticket) = try await client.backgroundDownloadRequest("tiny")
        let location = try handOver(s.artifact)
        let model = try client.installDownloadedFile(at: location, status: 200, for: ticket)
        #expect(model.localURL == dir.file("tiny.bin"))
        #expect(model.sha256 == s.sha)
        #expect(model.size == Int64(s.artifact.count))
        #expect(model.verified)
        #expect(try Data(contentsOf: dir.file("tiny.bin")) == s.artifact)
        #expect(try inode(dir.file("tiny.bin")) != previous.1)
        #expect(leftovers().isEmpty)
    }

    /// Files that must never be installed: flipped, cut short, longer than declared.
    static let badFiles: [(String, @Sendable (Data) -> Data)] = [
        ("a flipped byte", { var d = $0; d[d.count / 2] ^= 0x01; return d }),
        ("cut short", { $0.prefix($0.count - 1) }),
        ("longer than declared", { $0 + Data([0]) }),
        ("empty", { _ in Data() }),
    ]

    @Test("a damaged file is rejected and the previous file stays byte-for-byte, same inode", arguments: 0..<4)
    func rejectsDamaged(_ index: Int) async throws {
        let s = ScriptedStorage()
        let (client, _) = try makeClient(storage: dir.url, s.handler)
        let previous = try installPrevious()
        let (_, ticket) = try await client.backgroundDownloadRequest("tiny")
        let location = try handOver(Self.badFiles[index].1(s.artifact))
        #expect(throws: APIError.self, "\(Self.badFiles[index].0)") { _ = try client.installDownloadedFile(at: location, status: 200, for: ticket) }
        #expect(try Data(contentsOf: dir.file("tiny.bin")) == previous.0)
        #expect(try inode(dir.file("tiny.bin")) == previous.1)
        #expect(leftovers().isEmpty)
    }

    @Test("an answer other than 200 (an expired URL's 403, a 500 page) is never installed", arguments: [403, 410, 500, 206])
    func rejectsErrorPages(_ status: Int) async throws {
        let s = ScriptedStorage()
        let (client, _) = try makeClient(storage: dir.url, s.handler)
        let previous = try installPrevious()
        let (_, ticket) = try await client.backgroundDownloadRequest("tiny")
        // Even a file whose bytes happen to be right: the status says it is not the answer.
        let location = try handOver(s.artifact)
        #expect(throws: APIError.self) { _ = try client.installDownloadedFile(at: location, status: status, for: ticket) }
        #expect(try Data(contentsOf: dir.file("tiny.bin")) == previous.0)
        #expect(try inode(dir.file("tiny.bin")) == previous.1)
    }

    @Test("an expired URL's 403/410 says to request the download again, not to check the base URL (issue 26, 7)",
          arguments: [403, 410])
    func expiredURLAdvice(_ status: Int) async throws {
        let s = ScriptedStorage()
        let (client, _) = try makeClient(storage: dir.url, s.handler)
        let (_, ticket) = try await client.backgroundDownloadRequest("tiny")
        let location = try handOver(s.artifact)
        let error = try #require(throws: APIError.self) { _ = try client.installDownloadedFile(at: location, status: status, for: ticket) }
        #expect(error == .downloadURLExpired(modelId: "tiny", status: status))
        #expect(error.isRetryable)
        let text = error.localizedDescription
        #expect(text.contains("request the download again") && !text.contains("base URL") && !text.contains("update the SDK"), "\(text)")
    }

    @Test("a ticket naming an invalid model id is refused before any file is touched")
    func invalidTicket() throws {
        let (client, _) = try makeClient(storage: dir.url) { _ in .json(500, "{}") }
        let ticket = BackgroundDownloadTicket(modelId: "../evil", sha256: String(repeating: "a", count: 64), size: 1, version: nil)
        let location = try handOver(Data("x".utf8))
        #expect(throws: APIError.invalidModelId("../evil")) { _ = try client.installDownloadedFile(at: location, status: 200, for: ticket) }
        #expect(!FileManager.default.fileExists(atPath: dir.url.appendingPathComponent(".manashiki").path))
    }
}
