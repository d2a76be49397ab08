import Foundation
import ManashikiTestSupport
import Testing
@testable import ManashikiSyncCLI
import ManashikiSync

@Suite("KeyLoader")
struct KeyLoaderTests {
    let key = "mk_pub_acme_abcdefghijklmnopqrst0123"
    private let scratch = ScratchDirectory("keyloader")
    var dir: URL { scratch.url }

    func write(_ text: String, _ name: String = "key") throws -> String {
        let url = scratch.file(name)
        try Data(text.utf8).write(to: url)
        return url.path
    }

    func error(_ body: () throws(KeyError) -> LoadedKey) -> KeyError? {
        do { _ = try body(); return nil } catch { return error }
    }

    @Test("a key file loses exactly one trailing newline (LF or CRLF)")
    func newline() throws {
        for text in [key, key + "\n", key + "\r\n"] {
            let loaded = try KeyLoader.load(apiKeyFile: try write(text), environment: [:], manifest: nil, currentDirectory: dir)
            #expect(loaded.value == key)
        }
        let twice = try write(key + "\n\n")
        let e = error { () throws(KeyError) in try KeyLoader.load(apiKeyFile: twice, environment: [:], manifest: nil, currentDirectory: dir) }
        #expect(e?.message.contains("extra spaces or lines") == true)
        #expect(e?.message.contains(key) == false)
    }

    @Test("--api-key-file wins over MANASHIKI_API_KEY, which wins over the manifest's source")
    func precedence() throws {
        let other = "mk_pub_acme_zyxwvutsrqponmlkjihg9876"
        let path = try write(key)
        #expect(try KeyLoader.load(apiKeyFile: path, environment: ["MANASHIKI_API_KEY": other], manifest: nil, currentDirectory: dir).value == key)
        let manifest = Manifest(registry: RegistrySettings(apiKey: .environment("ACME_KEY")), models: [])
        #expect(try KeyLoader.load(apiKeyFile: nil, environment: ["MANASHIKI_API_KEY": other, "ACME_KEY": key], manifest: manifest, currentDirectory: dir).value == other)
        #expect(try KeyLoader.load(apiKeyFile: nil, environment: ["ACME_KEY": key], manifest: manifest, currentDirectory: dir).value == key)
    }

    @Test("the manifest's key file resolves against the manifest's directory")
    func manifestFile() throws {
        _ = try write(key + "\n", "api-key")
        let manifest = Manifest(registry: RegistrySettings(apiKey: .file("api-key")), models: [], baseDirectory: dir)
        let loaded = try KeyLoader.load(apiKeyFile: nil, environment: [:], manifest: manifest, currentDirectory: URL(fileURLWithPath: "/"))
        #expect(loaded.value == key)
        #expect(loaded.description.contains("acme"))
        #expect(!loaded.description.contains(key))
    }

    @Test("missing and malformed keys explain what to do and never show the value")
    func failures() {
        let missing = error { () throws(KeyError) in try KeyLoader.load(apiKeyFile: nil, environment: [:], manifest: nil, currentDirectory: dir) }
        #expect(missing?.message.contains("MANASHIKI_API_KEY") == true)
        let bad = "mk_pub_acme_short"
        let malformed = error { () throws(KeyError) in try KeyLoader.load(apiKeyFile: nil, environment: ["MANASHIKI_API_KEY": bad], manifest: nil, currentDirectory: dir) }
        #expect(malformed?.message.contains("malformed") == true)
        #expect(malformed?.message.contains(bad) == false)
        let unreadable = error { () throws(KeyError) in try KeyLoader.load(apiKeyFile: "/nonexistent/key", environment: [:], manifest: nil, currentDirectory: dir) }
        #expect(unreadable?.message.contains("cannot read") == true)
    }
}
