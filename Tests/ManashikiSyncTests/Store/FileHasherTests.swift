import Testing
import Foundation
import Manashiki
@testable import ManashikiSync
import ManashikiCore

@Suite("File hashing")
struct FileHasherTests {
    @Test("a file is hashed like the same bytes in memory, across 4 MiB reads")
    func multiChunk() throws {
        let store = TestStore()
        var bytes = Data(count: FileHasher.chunkSize + 12_345)
        for i in stride(from: 0, to: bytes.count, by: 4096) { bytes[i] = UInt8(i / 4096 % 251) }
        try bytes.write(to: store.file("big"))
        let result = try FileHasher.sha256(of: store.file("big"))
        #expect(result.sha256 == SHA256Hasher.hash(bytes).hex)
        #expect(result.size == Int64(bytes.count))
    }

    @Test("many files are hashed, and an unreadable one maps to an error")
    func many() async throws {
        let store = TestStore()
        store.write("a", "abc")
        store.write("b", "")
        let results = await FileHasher.sha256(of: [store.file("a"), store.file("b"), store.file("nope")])
        #expect(try results[store.file("a")]?.get() == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(try results[store.file("b")]?.get() == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        guard case .failure(.fileSystem)? = results[store.file("nope")] else { Issue.record("expected a file-system error"); return }
    }
}
