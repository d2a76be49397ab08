import Foundation
import ManashikiCore

/// `POST /api/uploads/model`: announces an upload and hands out a signed `PUT` URL on the
/// storage origin.
struct UploadEndpoint {
    let state: RegistryState

    /// Answers an upload announcement authenticated with `key`.
    func announce(_ request: ServerRequest, key: RegistryKey) -> ServerResponse {
        guard key.isServerKey else { return .error(403, "forbidden_scope", "uploads need a server key") }
        let body: [String: Any]
        switch JSONBody.object(request.body) {
        case .success(let o): body = o
        case .failure(let e): return .error(400, "bad_request", e.message)
        }
        guard let id = body["modelId"] as? String, RegistryModel.isValidModelId(id) else {
            return .error(400, "bad_request", "modelId is missing or not a valid model id")
        }
        guard let version = body["version"] as? String, !version.isEmpty, version.count <= 128 else {
            return .error(400, "bad_request", "version must be a non-empty string")
        }
        guard let size = JSONBody.int(body["size"]), size >= 0 else {
            return .error(400, "bad_request", "size must be a non-negative integer")
        }
        guard let sha = body["sha256"] as? String, Hex.isSHA256(sha) else {
            return .error(400, "bad_request", "sha256 must be 64 lowercase hex characters")
        }
        var visibility: String?
        if let v = body["visibility"], !(v is NSNull) {
            guard let s = v as? String, s == "public" || s == "private" else {
                return .error(400, "bad_request", "visibility must be \"public\" or \"private\"")
            }
            visibility = s
        }
        var format: JSONValue?
        if let f = body["format"], !(f is NSNull) {
            guard let value = JSONValue(foundation: f), case .object = value else {
                return .error(400, "bad_request", "format must be an object")
            }
            format = value
        }
        if state.hasVersion(id, version) {
            return .error(400, "bad_request", "version \(version) of \(id) is already published")
        }
        let uploadId = "up_" + Hex.random(bytes: 12)
        state.addUpload(PendingUpload(uploadId: uploadId, modelId: id, version: version, size: size, sha256: sha,
                                      visibility: visibility, format: format, organization: key.organization))
        let ttl = state.configuration.uploadURLTTL
        let path = StorageOrigin.uploadPath(uploadId)
        let query = state.signer.query(method: "PUT", path: path, expires: Int(Date().timeIntervalSince1970) + ttl)
        return .json(201, ["uploadId": uploadId, "uploadUrl": state.storageBase.absoluteString + path + "?" + query,
                           "method": "PUT", "expiresIn": ttl])
    }
}
