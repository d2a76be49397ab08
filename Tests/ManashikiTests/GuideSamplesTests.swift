import Foundation
import Testing
import Manashiki
import ManashikiTestSupport

// The SDK guide's samples from sections 3, 4, 5 and 9, compiled exactly as written.

/// Section 3, verbatim: the guide's literal key is a placeholder, so this throws invalidAPIKey.
func guideSection3() throws -> ManashikiClient {
    // 不正なキーはネットワーク通信の前に APIError.invalidAPIKey を投げます。
    let client = try ManashikiClient(apiKey: "mk_pub_acme_...")
    return client
}

/// Section 4, verbatim.
func guideSection4(client: ManashikiClient) async throws {
    // func listModels() async throws -> [ModelEntry]      (GET /api/models)
    let entries = try await client.listModels()
    for entry in entries {
        print(entry.modelId, entry.version, entry.size, entry.sha256)
    }

    // func getModel(_ modelId: String) async throws -> ModelRecord
    // (GET /api/models/:modelId)
    let record = try await client.getModel("whisper-medical-ja-fp16")
    print(record.lifecycle.status, record.compatibility.minOs ?? "-")
}

/// Section 5, verbatim (public and private downloads).
func guideSection5(client: ManashikiClient, session: String) async throws {
    let model = try await client.downloadModel("whisper-medical-ja-fp16") { written, total in
        if let total {
            print("\(written) / \(total) bytes")
        }
    }
    print(model.localURL)
    print(model.sha256)
    let lora = try await client.downloadModel(
        "doctor-abc123-lora-whisper-decoder-v3",
        session: session
    )
    _ = lora
}

@Suite("The SDK guide's samples")
struct GuideSamplesTests {
    @Test("section 3's placeholder key is rejected before any network traffic")
    func section3() {
        #expect(throws: APIError.invalidAPIKey) { _ = try guideSection3() }
    }

    @Test("section 3's full initializer with its defaults compiles and works")
    func section3FullInitializer() throws {
        let client = try ManashikiClient(apiKey: "mk_pub_acme_xxxxxxxxxxxxxxxxxxxxxxxx",
                                         baseURL: URL(string: "https://models.manashiki.com")!,
                                         transport: URLSessionTransport(),
                                         storageDirectory: nil)
        #expect(client.baseURL.absoluteString == "https://models.manashiki.com")
        #expect(client.storageDirectory.lastPathComponent == "ManashikiModels")
    }

    @Test("section 4 runs against a mock transport")
    func section4() async throws {
        let mock = MockTransport { request in
            request.url.path == "/api/models" ? .json(200, RequestTests.catalog) : .json(200, WireDecodingTests.fullRecord)
        }
        let client = try ManashikiClient(apiKey: "mk_pub_acme_xxxxxxxxxxxxxxxxxxxxxxxx", transport: mock)
        try await guideSection4(client: client)
        #expect(mock.requests.map(\.url.path) == ["/api/models", "/api/models/whisper-medical-ja-fp16"])
    }
}

/// Section 9's store, verbatim but for the SwiftUI view (not available on Linux) and
/// `@Observable` (Observation needs iOS 17 / macOS 14, above the package's deployment targets;
/// the portability check refuses it): compiling it checks that the progress closure capturing
/// a main-actor object and the `catch` patterns on `integrityMismatch` and `rateLimited` work
/// under Swift 6 strict concurrency.
@MainActor
final class GuideSection9CatalogStore {
    var models: [ModelEntry] = []
    var progress: Double = 0
    var status = ""

    // プレースホルダーは形式検証を通ります (ランダム部は 20 文字以上) — 実際のキーに差し替えてください。
    private let client = try! ManashikiClient(apiKey: "mk_pub_acme_xxxxxxxxxxxxxxxxxxxxxxxx")

    func load() async {
        do { models = try await client.listModels() }
        catch { status = "Catalog error: \(error)" }
    }

    func download(_ modelId: String) async {
        status = "Downloading \(modelId)..."
        do {
            let model = try await client.downloadModel(modelId) { written, total in
                guard let total else { return }
                Task { @MainActor in self.progress = Double(written) / Double(total) }
            }
            status = "Verified \(model.sha256.prefix(8)) at \(model.localURL.lastPathComponent)"
        } catch APIError.integrityMismatch(let expected, let actual) {
            status = "Integrity mismatch: expected \(expected.prefix(8)), got \(actual.prefix(8))"
        } catch APIError.rateLimited(let retry) {
            status = "Rate limited, retry in \(retry ?? 60)s"
        } catch {
            status = "Download failed: \(error)"
        }
    }
}
