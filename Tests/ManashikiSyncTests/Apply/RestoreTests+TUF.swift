#if os(Linux) || os(macOS) // python-tuf makes the repository (ManashikiProcess: Linux and macOS)
import Testing
import Foundation
import Manashiki
import ManashikiTestSupport
@testable import ManashikiSync
import ManashikiCore

extension RestoreTests {
    @Test("ModelSync.restore verifies trust.tuf from the manifest (root shipped beside it in the app bundle) as the sync agent does: a signed model installs; a rollback below marks kept outside the store, and a digest the publisher did not sign, are refused with the file as it was",
          .requires(.pythonTUF, .pythonCryptography))
    func tufRestore() async throws {
        let repo = try PythonTUFRepository()
        let artifact = Data("whisper weights".utf8)
        func sign(_ sha256: String) throws {
            try repo.publish(["targets": ["add": [["path": "models/whisper-ja/1.4.2.bin", "length": artifact.count, "sha256": sha256]]]])
        }
        try sign(SHA256Hasher.hash(artifact).hex)
        let metadata = repo.metadataDirectory
        // The publisher's repository as python-tuf wrote it, at tuf.example.test.
        let mock = Self.whisperRegistry(serving: artifact) { request in
            guard request.url.host == "tuf.example.test" else { return nil }
            let file = metadata.appendingPathComponent(request.url.lastPathComponent)
            return FileManager.default.contents(atPath: file.path).map { .bytes($0) } ?? .error(404, code: "not_found")
        }
        let store = TestStore()
        let app = store.url.appendingPathComponent("App.app", isDirectory: true)
        try FileManager.default.createDirectory(at: app, withIntermediateDirectories: true)
        try repo.initialRoot.write(to: app.appendingPathComponent("root.json"))
        let manifestURL = app.appendingPathComponent("models.json")
        try Data(#"{"schemaVersion": 1, "trust": {"tuf": {"metadataURL": "https://tuf.example.test/metadata/", "root": {"file": "root.json"}}}, "models": [{"id": "whisper-ja", "version": "^1.4"}]}"#.utf8).write(to: manifestURL)
        func restore(into name: String, marks: (any TrustHighWaterMarks)? = nil) async throws -> (ModelResult?, URL) {
            var options = Reconciler.Options(lockTimeout: .seconds(10), sleep: Fixture.lockPollSleep, device: Fixture.linux, freeSpace: { _ in 1 << 30 })
            options.trustHighWaterMarks = marks
            let models = store.url.appendingPathComponent(name)
            let report = try await ModelSync.restore(manifestURL: manifestURL, apiKey: "mk_pub_acme_0123456789abcdefghij",
                                                     storeDirectory: models, transport: mock, options: options)
            return (report["whisper-ja"], models.appendingPathComponent("whisper-ja.bin"))
        }
        func refusal(_ result: ModelResult?) -> TrustRefusal? {
            guard case .failed(let failure)? = result?.status else { return nil }
            return failure.trust
        }

        // Signed: installed with the TUF evidence; the app's marks (a file in the store on Linux) record it.
        let (installed, file) = try await restore(into: "a")
        #expect(installed?.status == .installed(version: "1.4.2") && installed?.trust?.first?.mechanism == "tuf", "\(String(describing: installed))")
        #expect(FileManager.default.contents(atPath: file.path) == artifact)
        #expect(AppTrustMarks.forStore(store.url.appendingPathComponent("a")).highest("whisper-ja") == "1.4.2")

        // A reinstall (an empty store) whose marks, kept outside the app's files (as the Keychain
        // is), say 1.5.0 was installed with trust: the registry's 1.4.2 is a refused rollback.
        let outside = FileHighWaterMarks(file: store.url.appendingPathComponent("outside/high-water.json"))
        try outside.record("1.5.0", for: "whisper-ja")
        let (rolledBack, rolledBackFile) = try await restore(into: "b", marks: outside)
        #expect(refusal(rolledBack)?.reason == .rollback(highest: "1.5.0", offered: "1.4.2"), "\(String(describing: rolledBack))")
        #expect(!FileManager.default.fileExists(atPath: rolledBackFile.path))

        // The publisher now signs other bytes as 1.4.2: the kept file is refused as verified but
        // stays; a fresh store installs nothing.
        try sign(String(repeating: "cd", count: 32))
        let (kept, keptFile) = try await restore(into: "a")
        #expect(refusal(kept)?.reasonCode == "mismatch", "\(String(describing: kept))")
        #expect(FileManager.default.contents(atPath: keptFile.path) == artifact)
        let (fresh, freshFile) = try await restore(into: "c")
        #expect(refusal(fresh)?.reasonCode == "mismatch" && !FileManager.default.fileExists(atPath: freshFile.path))
    }
}
#endif
