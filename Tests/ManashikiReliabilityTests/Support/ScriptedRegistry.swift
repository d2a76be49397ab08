import Foundation
import ManashikiTestSupport
import Manashiki
import ManashikiCore

/// A registry that speaks the contract from a `ScriptedOrigin` (catalog, records, download
/// tickets, blobs on the same origin), where a test overrides any answer with exact bytes.
final class ScriptedRegistry: @unchecked Sendable {
    struct Model: Sendable {
        var id: String
        var version: String
        var bytes: Data
        var sha256: String { SHA256Hex.of(bytes) }
    }

    typealias Override = @Sendable (ScriptedRequest, ScriptedRegistry) -> [ScriptStep]?

    private struct State {
        var models: [Model]
        var override: Override?
    }

    private let state: Locked<State>
    /// Models whose record says `"visibility": "private"` (downloads then carry the session).
    var privateIds: Set<String> = []
    private(set) var origin: ScriptedOrigin!

    init(models: [Model]) throws {
        state = Locked(State(models: models))
        origin = try ScriptedOrigin { _ in [] }
        origin.setHandler { [unowned self] request in answer(request) }
    }

    deinit { origin.stop() }

    var baseURL: URL { origin.baseURL }
    var requests: [ScriptedRequest] { origin.requests }

    func setOverride(_ override: Override?) { state.withLock { $0.override = override } }
    /// Replaces (or adds) a model: a new version becomes current.
    func publish(_ model: Model) {
        state.withLock { state in
            state.models.removeAll { $0.id == model.id }
            state.models.append(model)
        }
    }

    func model(_ id: String) -> Model? { state.current.models.first { $0.id == id } }

    /// The signed-looking URL of a blob on this origin (`sig=` is a secret that must never be printed).
    func blobURL(_ id: String) -> String { baseURL.absoluteString + "/blobs/\(id)?exp=9999999999&sig=SIGNATURESECRETxyz" }

    func catalogJSON() -> String {
        let all = state.current.models
        let entries = all.map { #"{"modelId": "\#($0.id)", "version": "\#($0.version)", "size": \#($0.bytes.count), "sha256": "\#($0.sha256)"}"# }
        return #"{"models": [\#(entries.joined(separator: ", "))]}"#
    }

    func recordJSON(_ m: Model) -> String {
        #"{"modelId": "\#(m.id)", "version": "\#(m.version)", "size": \#(m.bytes.count), "sha256": "\#(m.sha256)", "compatibility": {"platforms": ["linux"]}, "lifecycle": {"status": "production", "sunsetAt": null}, "visibility": "\#(privateIds.contains(m.id) ? "private" : "public")"}"#
    }

    func ticketJSON(_ m: Model, url: String? = nil) -> String {
        #"{"downloadUrl": "\#(url ?? blobURL(m.id))", "sha256": "\#(m.sha256)", "size": \#(m.bytes.count), "expiresIn": 300, "version": "\#(m.version)"}"#
    }

    private func answer(_ request: ScriptedRequest) -> [ScriptStep] {
        let override = state.current.override
        if let steps = override?(request, self) { return steps }
        let parts = request.path.split(separator: "/").map(String.init)
        switch parts.count {
        case 2 where parts == ["api", "models"]:
            return ScriptedOrigin.json(catalogJSON())
        case 3 where parts[0] == "api" && parts[1] == "models":
            guard let m = model(parts[2]) else { return notFound }
            return ScriptedOrigin.json(recordJSON(m))
        case 3 where parts[0] == "api" && parts[1] == "download":
            guard let m = model(parts[2]) else { return notFound }
            return ScriptedOrigin.json(ticketJSON(m))
        case 2 where parts[0] == "blobs":
            guard let m = model(parts[1]) else { return notFound }
            return [.send(ScriptedOrigin.response(200, headers: ["Content-Type: application/octet-stream"], body: m.bytes))]
        default:
            return notFound
        }
    }

    private var notFound: [ScriptStep] {
        ScriptedOrigin.json(#"{"error": {"code": "not_found", "message": "no such model"}}"#, status: 404)
    }
}

/// SHA-256 hex through the SDK's hasher.
enum SHA256Hex {
    static func of(_ data: Data) -> String { SHA256Hasher.hash(data).hex }
}
