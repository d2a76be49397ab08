import Foundation
import Manashiki
import ManashikiCore
import ManashikiTestSupport
import Testing
@testable import ManashikiSync

@Suite("OCI artifacts and registry authentication (mock transport)")
struct OCIArtifactTests {
    static let ref = OCIReference(host: "harbor.example", repository: "models", tag: "v1")
    static func artifact(_ id: String, _ c: Character, size: Int64 = 10) -> PinnedArtifact {
        PinnedArtifact(modelId: id, version: "1.0.0", size: size, sha256: String(repeating: c, count: 64),
                       record: ArtifactFacts(visibility: .public, lifecycle: ModelLifecycle(status: .production), compatibility: ModelCompatibility(platforms: [.linux])))
    }

    @Test("the manifest pushed: an OCI image manifest of our artifactType, the bundle index as config, one titled layer per model; the same selection gives the same bytes")
    func build() throws {
        let (manifest, config, configDigest) = try OCIArtifact.build([Self.artifact("b", "b"), Self.artifact("a", "a")])
        #expect(try OCIArtifact.build([Self.artifact("a", "a"), Self.artifact("b", "b")]).manifest == manifest)
        let decoded = try JSONDecoder().decode(OCIImageManifest.self, from: manifest)
        #expect(decoded.mediaType == OCIMediaTypes.imageManifest && decoded.artifactType == OCIMediaTypes.artifactType && decoded.schemaVersion == 2)
        #expect(decoded.config == OCIDescriptor(mediaType: OCIMediaTypes.config, digest: "sha256:\(configDigest)", size: Int64(config.count)))
        #expect(decoded.layers.map(\.digest) == ["sha256:" + String(repeating: "a", count: 64), "sha256:" + String(repeating: "b", count: 64)])
        #expect(decoded.layers[0].annotations == [OCIMediaTypes.titleAnnotation: "a.bin", OCIMediaTypes.modelIdAnnotation: "a", OCIMediaTypes.versionAnnotation: "1.0.0"])
        #expect(try BundleIndex.decode(config, location: "config").models.map(\.modelId) == ["a", "b"])

        let checked = try OCIArtifact.checkManifest(manifest, contentType: OCIMediaTypes.imageManifest, reference: Self.ref)
        let read = try OCIArtifact.assemble(checked, manifestDigest: "sha256:x", config: config, reference: Self.ref)
        #expect(read.index.models.map(\.modelId) == ["a", "b"] && read.unmatched.isEmpty)
    }

    @Test("a publisher signature is a Sigstore-typed layer of its own; a config naming a signature the manifest lacks keeps the model without it")
    func signatureLayers() throws {
        var signed = Self.artifact("a", "a")
        signed.signature = SignatureReference(sha256: String(repeating: "5", count: 64), size: 3412)
        let (manifest, config, _) = try OCIArtifact.build([signed, Self.artifact("b", "b")])
        let decoded = try JSONDecoder().decode(OCIImageManifest.self, from: manifest)
        let sig = try #require(decoded.layers.first { $0.mediaType == OCIMediaTypes.signatureLayer })
        #expect(sig.digest == "sha256:" + String(repeating: "5", count: 64) && sig.size == 3412)
        #expect(sig.annotations?[OCIMediaTypes.titleAnnotation] == "a.bin.sig")
        let checked = try OCIArtifact.checkManifest(manifest, contentType: OCIMediaTypes.imageManifest, reference: Self.ref)
        let read = try OCIArtifact.assemble(checked, manifestDigest: "sha256:x", config: config, reference: Self.ref)
        #expect(read.index.models.first { $0.modelId == "a" }?.signature == signed.signature)

        var stripped = checked
        stripped.layers.removeAll { $0.mediaType == OCIMediaTypes.signatureLayer }
        let without = try OCIArtifact.assemble(stripped, manifestDigest: "sha256:y", config: config, reference: Self.ref)
        #expect(without.index.models.map(\.modelId) == ["a", "b"] && without.unmatched.isEmpty)
        #expect(without.index.models.allSatisfy { $0.signature == nil })
    }

    @Test("what is refused, naming it: an index, a Docker manifest, another artifactType, another config; without artifactType our config type is accepted")
    func refusals() throws {
        func manifest(_ fields: String) -> Data {
            Data(#"{"schemaVersion": 2, \#(fields) "config": {"mediaType": "CONFIG", "digest": "sha256:\#(String(repeating: "c", count: 64))", "size": 2}, "layers": []}"#.utf8)
        }
        let cases: [(Data, String, String)] = [
            (Data(#"{"schemaVersion": 2, "mediaType": "application/vnd.oci.image.index.v1+json", "manifests": []}"#.utf8), "", "a manifest of media type application/vnd.oci.image.index.v1+json"),
            (manifest(""), "application/vnd.docker.distribution.manifest.v2+json", "a manifest of media type application/vnd.docker.distribution.manifest.v2+json"),
            (manifest(#""artifactType": "application/vnd.cncf.model.manifest.v1+json","#), OCIMediaTypes.imageManifest, "an artifact of type application/vnd.cncf.model.manifest.v1+json"),
            (manifest(""), OCIMediaTypes.imageManifest, "an image manifest with config CONFIG"),
        ]
        for (body, type, found) in cases {
            #expect(throws: OCIError.notAnArtifact(Self.ref, found: found)) { try OCIArtifact.checkManifest(body, contentType: type, reference: Self.ref) }
        }
        let oras = Data(String(decoding: manifest(""), as: UTF8.self).replacingOccurrences(of: "CONFIG", with: OCIMediaTypes.config).utf8)
        #expect(try OCIArtifact.checkManifest(oras, contentType: OCIMediaTypes.imageManifest, reference: Self.ref).artifactType == nil)
    }

    @Test("a config entry without a layer of its digest and size is dropped and named; a config of a newer format is refused")
    func unmatched() throws {
        let (manifestData, config, _) = try OCIArtifact.build([Self.artifact("a", "a"), Self.artifact("b", "b")])
        var manifest = try JSONDecoder().decode(OCIImageManifest.self, from: manifestData)
        manifest.layers[1].size = 11
        let read = try OCIArtifact.assemble(manifest, manifestDigest: "sha256:x", config: config, reference: Self.ref)
        #expect(read.index.models.map(\.modelId) == ["a"] && read.unmatched.map(\.modelId) == ["b"])
        #expect {
            try OCIArtifact.assemble(manifest, manifestDigest: "sha256:x", config: Data(#"{"formatVersion": 9, "models": []}"#.utf8), reference: Self.ref)
        } throws: { "\($0)".contains("newer than this \(Remedy.agent) reads") }
    }

    static func client(_ mock: MockTransport, credential: OCICredential?) -> OCIRegistryClient {
        OCIRegistryClient(ref, base: mock, found: OCICredentials.Found(credential: credential, note: nil), push: false, allowPlainHTTP: false)
    }

    @Test("the Bearer flow: 401 → one token (Basic to the realm) → the request again; the token is reused; another origin never gets credentials or an API key")
    func bearer() async throws {
        let mock = MockTransport { request in
            if request.url.host == "auth.example" { return .json(200, #"{"token": "tok-1", "expires_in": 300}"#) }
            if request.url.host == "storage.example" { return .bytes(Data("ok".utf8)) }
            guard request.headers["Authorization"] == "Bearer tok-1" else {
                return MockResponse(status: 401, headers: ["WWW-Authenticate": #"Bearer realm="https://auth.example/token",service="harbor",scope="repository:models:pull""#])
            }
            return .json(200, "{}")
        }
        let client = Self.client(mock, credential: OCICredential(username: "u", password: "p", origin: "file"))
        try await client.ping()
        try await client.ping()
        var other = HTTPRequest(url: URL(string: "https://storage.example/blob?sig=x")!)
        other.headers["Authorization"] = "Bearer tok-1"
        other.headers["X-API-Key"] = "mk_pub_x_0123456789abcdefghij"
        _ = try await client.transport.send(other)
        let requests = mock.requests
        #expect(requests.map { $0.url.host ?? "" } == ["harbor.example", "auth.example", "harbor.example", "harbor.example", "storage.example"])
        let token = requests[1]
        #expect(token.headers["Authorization"] == "Basic " + Data("u:p".utf8).base64EncodedString())
        #expect(token.url.query?.contains("service=harbor") == true && token.url.query?.contains("scope=repository:models:pull") == true)
        #expect(requests[3].headers["Authorization"] == "Bearer tok-1")                   // cached, no second token request
        #expect(requests[4].headers["Authorization"] == nil && requests[4].headers["X-API-Key"] == nil)
        #expect(await client.transport.auth.tokenRequests == 1)
    }

    @Test("refused credentials: one try, then every later request fails at once naming the registry and where the credentials came from")
    func refused() async throws {
        let mock = MockTransport { request in
            MockResponse(status: 401, headers: ["WWW-Authenticate": #"Basic realm="r""#])
        }
        let credential = OCICredential(username: "u", password: "s3cret", origin: "/home/u/.docker/config.json")
        #expect(!"\(credential)".contains("s3cret") && !String(reflecting: credential).contains("s3cret"))
        let client = Self.client(mock, credential: credential)
        for _ in 0..<3 {
            await #expect(throws: OCIError.unauthorized(registry: "registry harbor.example", credentials: "/home/u/.docker/config.json", detail: "")) { try await client.ping() }
        }
        #expect(mock.requests.count == 2)                                                   // anonymous, then Basic; nothing after
        #expect(mock.requests[1].headers["Authorization"]?.hasPrefix("Basic ") == true)
        let anonymous = Self.client(MockTransport { _ in MockResponse(status: 401, headers: ["WWW-Authenticate": #"Basic realm="r""#]) }, credential: nil)
        await #expect { try await anonymous.ping() } throws: { "\($0)".contains("requires credentials and none were found") }
    }

    @Test("a 403 is a permission problem; NAME_UNKNOWN and an unknown tag are told apart")
    func registryErrors() async throws {
        let mock = MockTransport { request in
            switch request.url.path {
            case "/v2/models/manifests/v1": return .json(404, #"{"errors": [{"code": "MANIFEST_UNKNOWN", "message": "manifest unknown"}]}"#)
            case "/v2/models/tags/list": return .json(404, #"{"errors": [{"code": "NAME_UNKNOWN", "message": "repository name not known"}]}"#)
            default: return MockResponse(status: 403)
            }
        }
        let client = Self.client(mock, credential: nil)
        await #expect(throws: OCIError.repositoryUnknown(Self.ref)) { _ = try await client.manifest(tag: "v1") }
        await #expect { try await client.ping() } throws: { error in
            guard case .denied? = error as? OCIError else { return false }
            return "\(error)".contains("denied access to models")
        }
    }
}
