import Foundation
import ManashikiCore
import Testing
@testable import ManashikiSync

@Suite("OCI registry credentials: the container tools' auth files, a source's file or variable")
struct OCICredentialsTests {
    static let ref = OCIReference(host: "harbor.example", port: 8443, repository: "team/models")

    static func environment(_ variables: [String: String], files: [String: String]) -> SyncEnvironment {
        SyncEnvironment(variables: variables, readFile: { url in
            guard let text = files[url.path] else { throw CocoaError(.fileNoSuchFile) }
            return text
        })
    }

    static func auths(_ key: String, user: String = "u", password: String = "p") -> String {
        let auth = Data("\(user):\(password)".utf8).base64EncodedString()
        return #"{"auths": {"\#(key)": {"auth": "\#(auth)"}}}"#
    }

    @Test("the search order: REGISTRY_AUTH_FILE, XDG_RUNTIME_DIR, XDG_CONFIG_HOME (~/.config), DOCKER_CONFIG (~/.docker)")
    func searchPath() {
        #expect(OCICredentials.searchPath(["HOME": "/h", "REGISTRY_AUTH_FILE": "/a.json", "XDG_RUNTIME_DIR": "/run/user/1", "DOCKER_CONFIG": "/d"])
                == ["/a.json", "/run/user/1/containers/auth.json", "/h/.config/containers/auth.json", "/d/config.json"])
        #expect(OCICredentials.searchPath(["HOME": "/h", "XDG_CONFIG_HOME": "/x"]) == ["/x/containers/auth.json", "/h/.docker/config.json"])
    }

    @Test("the first file with an entry wins; keys match without a scheme or /v1/, the most specific repository path first")
    func lookup() throws {
        let env = Self.environment(["HOME": "/h"], files: [
            "/h/.config/containers/auth.json": Self.auths("other.example"),
            "/h/.docker/config.json": #"{"auths": {"https://harbor.example:8443/v1/": {"auth": "\#(Data("wide:1".utf8).base64EncodedString())"}, "harbor.example:8443/team": {"username": "narrow", "password": "2"}}}"#,
        ])
        let found = try OCICredentials.lookup(Self.ref, source: nil, environment: env, baseDirectory: nil)
        #expect(found.credential?.username == "narrow" && found.credential?.password == "2" && found.credential?.origin == "/h/.docker/config.json")
        let none = try OCICredentials.lookup(OCIReference(host: "nowhere.example", repository: "a"), source: nil, environment: env, baseDirectory: nil)
        #expect(none.credential == nil && none.note == nil)
    }

    @Test("a credential helper (credHelpers, credsStore) is asked with the server on its input; an identity token is kept; a failing helper is named")
    func helpersAndTokens() async throws {
        let asked = Locked<[[String]]>([])
        var env = Self.environment(["HOME": "/h"], files: ["/h/.docker/config.json": #"{"auths": {"harbor.example:8443": {}}, "credsStore": "desktop", "credHelpers": {"harbor.example:8443": "ecr-login"}}"#])
        env.runCommand = { argv in
            asked.withLock { $0.append(argv) }
            return #"{"ServerURL": "harbor.example:8443", "Username": "AWS", "Secret": "s3cret-token"}"#
        }
        let found = try OCICredentials.lookup(Self.ref, source: nil, environment: env, baseDirectory: nil)
        #expect(found.credential == nil && found.helper == "ecr-login" && found.helperFile == "/h/.docker/config.json")
        let (credential, note) = await OCICredentials.fromHelper(found, Self.ref)
        #expect(credential?.username == "AWS" && credential?.password == "s3cret-token" && note == nil)
        #expect(credential?.origin == "the credential helper docker-credential-ecr-login (named by /h/.docker/config.json)")
        #expect(asked.current == [["/bin/sh", "-c", #"printf '%s' "$1" | exec "docker-credential-$0" get"#, "ecr-login", "harbor.example:8443"]])
        var failing = found
        failing.run = { _ in throw SyncFailure(kind: .terminal, message: "could not run the session command /bin/sh") }
        let (none, why) = await OCICredentials.fromHelper(failing, Self.ref)
        #expect(none == nil && why?.contains("docker-credential-ecr-login") == true && why?.contains("on PATH") == true)
        let token = try OCICredentials.entry(in: #"{"auths": {"harbor.example:8443": {"identitytoken": "refresh-xyz"}}}"#, file: "/f", for: Self.ref)
        #expect(token.credential?.identityToken == "refresh-xyz")
    }

    @Test("a source's credentials: a variable of USERNAME:PASSWORD or an auth file; missing ones are errors naming them, never the secret")
    func sourceCredentials() throws {
        let env = Self.environment(["REG": "robot$ci:t0ken:with:colons\n", "BAD": "nocolon-s3cret"], files: ["/etc/m/auth.json": Self.auths("harbor.example:8443", user: "f", password: "g")])
        let fromEnv = try OCICredentials.lookup(Self.ref, source: .environment("REG"), environment: env, baseDirectory: nil)
        #expect(fromEnv.credential?.username == "robot$ci" && fromEnv.credential?.password == "t0ken:with:colons")
        #expect(fromEnv.credential?.origin == "environment variable REG")
        let fromFile = try OCICredentials.lookup(Self.ref, source: .file("auth.json"), environment: env, baseDirectory: URL(fileURLWithPath: "/etc/m"))
        #expect(fromFile.credential?.username == "f" && fromFile.credential?.basicHeader == "Basic " + Data("f:g".utf8).base64EncodedString())
        for (source, message) in [(OCICredentialSource.environment("UNSET"), "UNSET, which is not set"), (.environment("BAD"), "does not hold USERNAME:PASSWORD"),
                                  (.file("/nope.json"), "cannot read the auth file /nope.json")] {
            #expect {
                try OCICredentials.lookup(Self.ref, source: source, environment: env, baseDirectory: nil)
            } throws: { error in
                let text = "\(error)"
                return text.contains(message) && !text.contains("s3cret")
            }
        }
    }
}
