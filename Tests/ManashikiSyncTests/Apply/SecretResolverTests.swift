import Foundation
import Testing
@testable import ManashikiSync

@Suite("SecretResolver")
struct SecretResolverTests {
    static let key = "mk_pub_acme_abcdefghijklmnopqrst0123"

    /// An environment whose files are `files` (by last path component).
    static func environment(_ files: [String: String], variables: [String: String] = [:]) -> SyncEnvironment {
        SyncEnvironment(variables: variables, readFile: { url in
            guard let text = files[url.lastPathComponent] else { throw CocoaError(.fileReadNoSuchFile) }
            return text
        })
    }

    @Test("token and key files lose exactly one trailing newline (LF or CRLF), nothing more", arguments: ["", "\n", "\r\n"])
    func oneNewline(ending: String) async throws {
        let resolver = SecretResolver(environment: Self.environment(["token": "tok123" + ending, "key": Self.key + ending]),
                                      baseDirectory: URL(fileURLWithPath: "/srv"))
        let registry = FakeRegistry(storageDirectory: URL(fileURLWithPath: "/nonexistent"))
        #expect(try await resolver.token(.file("token"), registry: registry) == "tok123")
        #expect(try resolver.apiKey(.file("key")).value == Self.key)
    }

    @Test("environment variables lose exactly one trailing newline too (a Kubernetes Secret made from a file keeps it)", arguments: ["", "\n", "\r\n"])
    func oneNewlineInVariables(ending: String) async throws {
        let resolver = SecretResolver(environment: Self.environment([:], variables: ["KEY": Self.key + ending, "TOKEN": "tok123" + ending]), baseDirectory: nil)
        let registry = FakeRegistry(storageDirectory: URL(fileURLWithPath: "/nonexistent"))
        #expect(try resolver.apiKey(.environment("KEY")).value == Self.key)
        #expect(try await resolver.token(.environment("TOKEN"), registry: registry) == "tok123")
        let twice = SecretResolver(environment: Self.environment([:], variables: ["KEY": Self.key + "\n" + ending + "\n"]), baseDirectory: nil)
        #expect(throws: KeyError.self) { try twice.apiKey(.environment("KEY")) }
    }

    @Test("a missing or malformed key names its source and the fix, never the value")
    func keyFailures() {
        let resolver = SecretResolver(environment: Self.environment([:], variables: ["BAD": "mk_pub_acme_short"]), baseDirectory: nil)
        let unset = #expect(throws: KeyError.self) { try resolver.apiKey(.environment("UNSET")) }
        #expect(unset?.message.contains("export UNSET") == true)
        let malformed = #expect(throws: KeyError.self) { try resolver.apiKey(.environment("BAD")) }
        #expect(malformed?.message.contains("malformed") == true)
        #expect(malformed?.message.contains("mk_pub_acme_short") == false)
        let unreadable = #expect(throws: KeyError.self) { try resolver.apiKey(.file("/etc/nope")) }
        #expect(unreadable?.message.contains("cannot read the API key file /etc/nope") == true)
    }
}
