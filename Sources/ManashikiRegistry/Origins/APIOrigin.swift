import Foundation
import ManashikiCore

/// The API origin: `/api/models`, `/api/models/{id}`, `/api/download/{id}`, `/api/session`,
/// `/api/uploads/model`, plus the admin endpoints under `/_admin/`.
struct APIOrigin: HTTPRequestHandler {
    let state: RegistryState

    private struct Route {
        let endpoint: RegistryEndpoint
        let modelId: String?
        let methods: [String]
    }

    func handle(_ request: ServerRequest, contentLength: Int, on connection: HTTPConnection) -> Bool {
        let keepAlive = request.wantsKeepAlive
        guard contentLength <= state.configuration.maxJSONBodyBytes else {
            var response = ServerResponse.error(413, "bad_request", "the request body is larger than \(state.configuration.maxJSONBodyBytes) bytes")
            response.closeConnection = true
            return ResponseWriter.send(response, on: connection, keepAlive: false)
        }
        var request = request
        do {
            request.body = try connection.readBody(count: contentLength)
        } catch {
            return false
        }
        if request.path == "/_admin" || request.path.hasPrefix("/_admin/") {
            let response = AdminEndpoint(state: state).handle(request)
            return ResponseWriter.send(response, on: connection, keepAlive: keepAlive)
        }
        state.log.record(request, origin: .api)
        let headOnly = request.method == "HEAD"
        if request.path.hasPrefix(Self.tufPrefix) {
            let name = String(request.path.dropFirst(Self.tufPrefix.count))
            // A fault on the TUF endpoint fires on timestamp.json, the first file of a refresh.
            let fault = name == "timestamp.json" && state.tuf != nil ? state.faults.take(.tufMetadata, modelId: nil) : nil
            if let answer = FaultResponses.answer(for: fault, request: request, base: state.apiBase, origin: .api) {
                return ResponseWriter.send(answer, on: connection, headOnly: headOnly, keepAlive: keepAlive)
            }
            return ResponseWriter.send(tufMetadata(request, name: name, fault: fault), on: connection, headOnly: headOnly,
                                       keepAlive: keepAlive, fault: fault?.isTUF == true ? nil : fault)
        }
        guard let route = route(request) else {
            return ResponseWriter.send(.error(404, "not_found", "no such endpoint: \(request.path)"), on: connection,
                                       headOnly: headOnly, keepAlive: keepAlive)
        }
        guard route.methods.contains(request.method) else {
            var response = ServerResponse.error(405, "method_not_allowed", "\(request.method) is not allowed on \(request.path)")
            response.headers.append(("Allow", route.methods.joined(separator: ", ")))
            return ResponseWriter.send(response, on: connection, headOnly: headOnly, keepAlive: keepAlive)
        }
        let fault = state.faults.take(route.endpoint, modelId: route.modelId)
        if let answer = FaultResponses.answer(for: fault, request: request, base: state.apiBase, origin: .api) {
            return ResponseWriter.send(answer, on: connection, headOnly: headOnly, keepAlive: keepAlive)
        }
        let response = respond(to: request, route: route, fault: fault)
        return ResponseWriter.send(response, on: connection, headOnly: headOnly, keepAlive: keepAlive, fault: fault)
    }

    /// Where the TUF repository's metadata is served (`serve --tuf DIR`).
    static let tufPrefix = "/tuf/metadata/"

    /// `GET /tuf/metadata/<file>`: public, like any TUF repository's metadata (no API key);
    /// a TUF `fault` makes this refresh's metadata faulty.
    private func tufMetadata(_ request: ServerRequest, name: String, fault: RegistryFault.Kind?) -> ServerResponse {
        guard let tuf = state.tuf else {
            return .error(404, "not_found", "this registry serves no TUF metadata: start it with --tuf DIR")
        }
        guard request.method == "GET" || request.method == "HEAD" else {
            var response = ServerResponse.error(405, "method_not_allowed", "\(request.method) is not allowed on \(request.path)")
            response.headers.append(("Allow", "GET, HEAD"))
            return response
        }
        guard let data = tuf.file(name, artifacts: state.servedArtifacts(), fault: fault) else {
            return .error(404, "not_found", "no TUF metadata file \(name)")
        }
        return ServerResponse(status: 200, headers: [("Content-Type", "application/json")], body: .data(data))
    }

    private func route(_ request: ServerRequest) -> Route? {
        let s = request.segments
        guard s.first == "api", request.path.hasPrefix("/api/") || request.path == "/api" else { return nil }
        switch s.count {
        case 2 where s[1] == "models": return Route(endpoint: .catalog, modelId: nil, methods: ["GET", "HEAD"])
        case 2 where s[1] == "session": return Route(endpoint: .session, modelId: nil, methods: ["POST"])
        case 3 where s[1] == "models": return Route(endpoint: .model, modelId: s[2], methods: ["GET", "HEAD"])
        case 3 where s[1] == "download": return Route(endpoint: .download, modelId: s[2], methods: ["GET", "HEAD"])
        case 3 where s[1] == "uploads" && s[2] == "model":
            let id = (try? JSONSerialization.jsonObject(with: request.body) as? [String: Any])?["modelId"] as? String
            return Route(endpoint: .upload, modelId: id, methods: ["POST"])
        default: return nil
        }
    }

    private func respond(to request: ServerRequest, route: Route, fault: RegistryFault.Kind?) -> ServerResponse {
        guard let secret = request.header("X-API-Key"), !secret.isEmpty else {
            return .error(401, "invalid_api_key", "no API key: send X-API-Key")
        }
        guard let key = state.key(secret) else {
            return .error(401, "invalid_api_key", "the API key is unknown or revoked")
        }
        switch route.endpoint {
        case .catalog:
            return .json(200, ["models": state.models(for: key).map(WireRecord.summary)])
        case .model:
            guard let id = route.modelId, let entry = state.model(id, for: key) else { return notFound(route.modelId) }
            return .json(200, WireRecord.full(entry))
        case .download:
            return download(request, modelId: route.modelId, key: key, fault: fault)
        case .session:
            return SessionEndpoint(state: state).issue(request, key: key)
        case .upload:
            return UploadEndpoint(state: state).announce(request, key: key)
        case .storage, .storageUpload, .tufMetadata:
            return notFound(nil)
        }
    }

    private func notFound(_ modelId: String?) -> ServerResponse {
        .error(404, "not_found", modelId.map { "no model \"\($0)\" in this registry" } ?? "not found")
    }

    private func download(_ request: ServerRequest, modelId: String?, key: RegistryKey, fault: RegistryFault.Kind?) -> ServerResponse {
        guard let id = modelId, let entry = state.model(id, for: key) else { return notFound(modelId) }
        if entry.model.status == "sunset" {
            return .error(410, "model_sunset", "model \"\(id)\" has been sunset and can no longer be downloaded")
        }
        if entry.model.visibility == "private" {
            guard let authorization = request.header("Authorization") else {
                return .error(401, "session_required", "model \"\(id)\" is private: send Authorization: Bearer <session token>")
            }
            let parts = authorization.split(separator: " ", maxSplits: 1)
            guard parts.count == 2, parts[0].lowercased() == "bearer", state.sessionIsValid(String(parts[1])) else {
                return .error(401, "invalid_session", "the session token is expired, unknown or malformed")
            }
        }
        let ttl = state.configuration.urlTTL
        var expires = Int(Date().timeIntervalSince1970) + ttl
        var gone = false
        if case .expiredURL(let status)? = fault {
            expires = Int(Date().timeIntervalSince1970) - 60
            gone = status == 410
        }
        let version = entry.model.version
        let path = StorageOrigin.blobPath(modelId: id, version: version)
        let query = state.signer.query(method: "GET", path: path, expires: expires, gone: gone)
        var url = state.storageBase.absoluteString + path + "?" + query + "&epoch=\(state.urlEpoch.current)"
        if case .downloadURL(let target)? = fault {
            url = FaultResponses.location(target, path: path + "?" + query, base: state.storageBase)
        }
        var body: [String: Any] = ["downloadUrl": url, "size": entry.artifact.size, "expiresIn": ttl, "version": version,
                                   "sha256": entry.artifact.sha256]
        switch fault {
        case .wrongDigest?: body["sha256"] = SHA256Hasher.hash(Data("not the artifact: \(entry.artifact.sha256)".utf8)).hex
        case .missingDigest(let asNull)?: body["sha256"] = asNull ? NSNull() : nil
        default: break
        }
        return .json(200, body)
    }
}
