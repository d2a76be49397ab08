#if os(Linux) || os(macOS) // child processes (ManashikiProcess) exist on Linux and macOS only
import Foundation
import Testing
@testable import Manashiki
import ManashikiCore
import ManashikiTestSupport

/// A real web server that throttles each connection, as CDNs do: Debian's nginx with
/// `limit_rate`, started by the test. Its access log shows what each connection asked for.
@Suite("Parallel transfers from nginx with a per-connection limit")
struct NginxParallelTests {
    @Test("nginx limiting each connection (limit_rate 4m): the adaptive transfer opens several, with bounded Range requests covering the file exactly once", .requires(.nginx))
    func limitRate() async throws {
        let root = ScratchDirectory("nginx-root"), storage = ScratchDirectory("storage")
        defer { root.remove(); storage.remove() }
        let size = 48 << 20
        // Pseudo-random bytes (xorshift), filled in place: quick even in a debug build, so the
        // test holds no thread of the shared pool for long.
        var bytes = Data(count: size)
        var x: UInt64 = 0x9E37_79B9_7F4A_7C15 ^ UInt64(UInt32.random(in: 1...UInt32.max))
        bytes.withUnsafeMutableBytes { raw in
            for i in 0..<(size / 8) {
                x ^= x << 13; x ^= x >> 7; x ^= x << 17
                raw.storeBytes(of: x, toByteOffset: i * 8, as: UInt64.self)
            }
        }
        let sha = SHA256Hasher.hash(bytes).hex
        try FileManager.default.createDirectory(at: root.url.appendingPathComponent("blobs"), withIntermediateDirectories: true)
        try bytes.write(to: root.url.appendingPathComponent("blobs/\(sha)"))
        let nginx = try await NginxMirror(server: "root \(root.url.path);\n    location /blobs/ { default_type application/octet-stream; limit_rate 4m; }")
        var options = DownloadOptions()
        options.parallelThreshold = 1 << 20
        let model = try await ArtifactDownloader(transport: DefaultTransport())
            .download("big", from: ArtifactLocation(url: URL(string: "\(nginx.baseURL)/blobs/\(sha)")!),
                      expecting: ExpectedArtifact(sha256: sha, size: Int64(size)), into: StorageDirectory(url: storage.url), options: options)
        let log = nginx.rangeLog.split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
        await nginx.stop()
        #expect(model.verified && model.sha256 == sha)
        #expect(try Data(contentsOf: storage.url.appendingPathComponent("big.bin")) == bytes)
        // status, Range, body bytes sent, connection serial number
        #expect(log.allSatisfy { $0.count == 4 && $0[0] == "206" }, "\(log)")
        let parts = log.compactMap { ParallelTransferTests.bounds($0[1]) }
        #expect(parts.count == log.count && parts.count >= 4, "\(log)")
        #expect(Set(log.map { $0[3] }).count >= 2, "one connection only: \(log)")
        #expect(ByteRangeSet(parts).ranges == [0..<Int64(size)] && parts.reduce(0) { $0 + $1.count } == Int64(size), "\(log)")
        #expect(log.reduce(0) { $0 + (Int64($1[2]) ?? 0) } == Int64(size), "\(log)")
    }
}
#endif
