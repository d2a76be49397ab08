import Foundation
import Testing
@testable import ManashikiSync

@Suite("OCI references, challenges and manifest sources")
struct OCIReferenceTests {
    @Test("references parse into host, port, repository, tag and scheme", arguments: [
        ("oci://harbor.example.internal/models/site-a:v3", "harbor.example.internal", nil as Int?, "models/site-a", "v3" as String?, false),
        ("oci://127.0.0.1:5000/models:2025-06_01", "127.0.0.1", 5000, "models", "2025-06_01", false),
        ("oci+http://localhost:5000/a/b/c", "localhost", 5000, "a/b/c", nil, true),
        ("oci://[::1]:5443/m__x.y-z:latest", "[::1]", 5443, "m__x.y-z", "latest", false),
        ("oci://docker.io/ubuntu:24.04", "docker.io", nil, "library/ubuntu", "24.04", false),
        ("registry.example/team/models", "registry.example", nil, "team/models", nil, false),
    ])
    func parses(text: String, host: String, port: Int?, repository: String, tag: String?, plain: Bool) throws {
        let r = try OCIReference.parse(text).get()
        #expect(r.host == host && r.port == port && r.repository == repository && r.tag == tag && r.plainHTTP == plain)
    }

    @Test("bad references say what is wrong and what to write", arguments: [
        ("oci://harbor.example", "has no repository"),
        ("oci://harbor.example/Models:v1", "not a valid repository name"),
        ("oci://harbor.example/a--/b:v1", "not a valid repository name"),
        ("oci://harbor.example/a//b:v1", "not a valid repository name"),
        ("oci://harbor.example/a:-v1", "not a valid tag"),
        ("oci://user:s3cret@harbor.example/a:v1", "names a digest or carries credentials"),
        ("oci://harbor.example/a@sha256:abcd", "names a digest"),
        ("oci://harbor.example:99999/a:v1", "does not start with a registry host"),
    ])
    func refuses(text: String, message: String) {
        guard case .failure(let problem) = OCIReference.parse(text) else { Issue.record("\(text) parsed"); return }
        #expect(problem.message.contains(message), "\(problem)")
        #expect(!problem.description.contains("s3cret"))
        #expect(!problem.hint.isEmpty)
    }

    @Test("a push needs a tag; the base URL is https unless plain http was asked for; Docker Hub's API host")
    func urls() throws {
        guard case .failure(let p) = OCIReference.parse("oci://h.example/a", requireTag: true) else { Issue.record("no tag accepted"); return }
        #expect(p.message.contains("has no tag"))
        #expect(try OCIReference.parse("oci://h.example:8443/a:v1").get().baseURL.absoluteString == "https://h.example:8443")
        #expect(try OCIReference.parse("oci+http://127.0.0.1:5000/a:v1").get().baseURL.absoluteString == "http://127.0.0.1:5000")
        #expect(try OCIReference.parse("oci://docker.io/a/b:v1").get().baseURL.absoluteString == "https://registry-1.docker.io")
        #expect(try OCIReference.parse("oci+http://127.0.0.1:5000/a:v1").get().description == "oci+http://127.0.0.1:5000/a:v1")
    }

    @Test("WWW-Authenticate challenges: Bearer with its parameters, Basic, several in one header, quoted commas")
    func challenges() {
        let bearer = OCIChallenge.parse([#"Bearer realm="https://auth.example/token",service="registry.example",scope="repository:a/b:pull,push""#])
        #expect(bearer == [OCIChallenge(scheme: "bearer", parameters: ["realm": "https://auth.example/token", "service": "registry.example", "scope": "repository:a/b:pull,push"])])
        let both = OCIChallenge.parse([#"Basic realm="Registry Realm", Bearer realm="https://t.example/token""#])
        #expect(both.map(\.scheme) == ["basic", "bearer"])
        #expect(both[0].realm == "Registry Realm" && both[1].realm == "https://t.example/token")
        #expect(OCIChallenge.parse([#"bearer realm=https://t.example/token, error="insufficient_scope""#]).first?.parameters["error"] == "insufficient_scope")
        #expect(OCIChallenge.parse([""]).isEmpty)
    }

    static func manifest(_ sources: String) throws -> Manifest {
        try Manifest.decode(Data(#"{"schemaVersion": 1, "sources": \#(sources), "models": []}"#.utf8))
    }

    @Test("a manifest's OCI source: repository, tag, credentials, allowHTTP and private")
    func manifestSource() throws {
        let m = try Self.manifest(#"[{"oci": "harbor.example/models/site", "tag": "v3", "credentials": {"file": "auth.json"}, "private": true}, {"oci": "http://10.0.0.5:5000/m", "allowHTTP": true, "credentials": {"env": "REG"}}]"#)
        #expect(m.sources[0].kind == .oci(OCIReference(host: "harbor.example", repository: "models/site", tag: "v3")))
        #expect(m.sources[0].credentials == .file("auth.json") && m.sources[0].servesPrivate && m.sources[0].servesOffline)
        #expect(m.sources[1].kind == .oci(OCIReference(host: "10.0.0.5", port: 5000, repository: "m", plainHTTP: true)))
        #expect(m.sources[1].credentials == .environment("REG") && m.sources[1].allowsPlainHTTP)
        #expect(m.label(of: m.sources[0]) == "oci://harbor.example/models/site:v3")
        let cli = try ArtifactSource(commandLine: "oci://h.example/a:v1", relativeTo: URL(fileURLWithPath: "/"))
        #expect(cli.kind == .oci(OCIReference(host: "h.example", repository: "a", tag: "v1")))
        #expect(throws: ArtifactFileError.self) { try ArtifactSource(commandLine: "oci+http://h.example/a:v1", relativeTo: URL(fileURLWithPath: "/")) }
    }

    @Test("bad OCI sources are reported with their JSON path and a fix", arguments: [
        (#"[{"oci": "h.example/a:v1"}]"#, "sources[0].oci", "has a tag in the repository"),
        (#"[{"oci": "h.example/a", "tag": "-x"}]"#, "sources[0].tag", "must be a tag"),
        (#"[{"oci": "h.example/a", "credentials": "user:pw"}]"#, "sources[0].credentials", "must be {"),
        (#"[{"oci": "h.example/a", "credentials": {"file": "a", "env": "B"}}]"#, "sources[0].credentials", "must be {"),
        (#"[{"oci": "http://h.example/a"}]"#, "sources[0].oci", "plain http to another host"),
        (#"[{"bundle": "/b", "tag": "v1"}]"#, "sources[0].tag", "oci sources only"),
        (#"[{"mirror": "https://m.example", "oci": "h.example/a"}]"#, "sources[0]", "has both \"mirror\" and \"oci\""),
    ])
    func badSources(sources: String, path: String, message: String) {
        #expect {
            try Self.manifest(sources)
        } throws: { error in
            let problem = (error as? ManifestError)?.problems.first { $0.path == path }
            return problem?.message.contains(message) == true && problem?.hint?.isEmpty == false
        }
    }
}

@Suite("OCI sources in the fetcher: private models, offline runs")
struct OCISourceEligibilityTests {
    static func resolved(_ kind: ArtifactSource.Kind, private servesPrivate: Bool) -> ArtifactFetcher.ResolvedSource {
        let source = ArtifactSource(kind, servesPrivate: servesPrivate)
        return ArtifactFetcher.ResolvedSource(source: source, bundle: nil, label: source.description)
    }

    @Test("private models come only from an OCI source marked private; an offline run uses OCI sources and bundles, never mirrors")
    func eligibility() {
        let oci = Self.resolved(.oci(OCIReference(host: "h.example", repository: "m", tag: "v1")), private: false)
        let privateOCI = Self.resolved(.oci(OCIReference(host: "h.example", repository: "p", tag: "v1")), private: true)
        let mirror = Self.resolved(.mirror(URL(string: "https://m.example")!), private: true)
        let online = ArtifactFetcher(sources: [oci, privateOCI, mirror], mirrorClient: nil, offline: false)
        #expect(online.eligible(isPrivate: false).map(\.label) == [oci.label, privateOCI.label, mirror.label])
        #expect(online.eligible(isPrivate: true).map(\.label) == [privateOCI.label, mirror.label])
        let offline = ArtifactFetcher(sources: [oci, privateOCI, mirror], mirrorClient: nil, offline: true)
        #expect(offline.eligible(isPrivate: false).map(\.label) == [oci.label, privateOCI.label])
        #expect(offline.eligible(isPrivate: true).map(\.label) == [privateOCI.label])
    }
}
