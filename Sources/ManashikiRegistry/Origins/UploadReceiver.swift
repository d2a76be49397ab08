import Foundation
import ManashikiCore

/// `PUT` of an upload URL on the storage origin: streams the body to disk while hashing it,
/// and publishes the version when size and digest match.
struct UploadReceiver {
    let state: RegistryState

    /// Receives the body of an upload. Returns whether the connection may be reused.
    func receive(_ request: ServerRequest, uploadId: String, contentLength: Int, on c: HTTPConnection) -> Bool {
        let keepAlive = request.wantsKeepAlive
        let upload = state.upload(uploadId)
        let fault = state.faults.take(.storageUpload, modelId: upload?.modelId)
        func refuse(_ response: ServerResponse) -> Bool {
            var response = response
            if contentLength > 0 { response.closeConnection = true }
            return ResponseWriter.send(response, on: c, keepAlive: keepAlive)
        }
        if let answer = FaultResponses.answer(for: fault, request: request, base: state.storageBase, origin: .storage) {
            return refuse(answer)
        }
        switch state.signer.verify(method: "PUT", path: request.path, query: request.queryItems) {
        case .valid: break
        case .invalid: return refuse(.error(403, "invalid_signature", "the upload URL signature is missing or wrong"))
        case .expired(let status): return refuse(.error(status, "url_expired", "the upload URL has expired"))
        }
        guard let upload else { return refuse(.error(404, "not_found", "no such upload")) }
        guard !upload.completed else { return refuse(.error(400, "bad_request", "this upload has already been completed")) }
        guard request.header("Content-Length") != nil else {
            return refuse(.error(411, "bad_request", "send the artifact with a Content-Length"))
        }
        guard contentLength == upload.size else {
            return refuse(.error(400, "bad_request", "the body is \(contentLength) bytes but the upload declared \(upload.size)"))
        }
        let file = state.store.newWorkFile()
        guard FileManager.default.createFile(atPath: file.path, contents: nil),
              let handle = try? FileHandle(forWritingTo: file) else {
            return refuse(.error(500, "internal", "the registry could not create a file for the upload"))
        }
        let hasher = SHA256Hasher()
        do {
            try c.streamBody(count: contentLength) { bytes in
                hasher.update(bytes)
                try handle.write(contentsOf: Data(bytes))
            }
            try handle.close()
        } catch {
            try? handle.close()
            try? FileManager.default.removeItem(at: file)
            return false
        }
        let digest = hasher.finalize().hex
        guard digest == upload.sha256 else {
            try? FileManager.default.removeItem(at: file)
            return ResponseWriter.send(.error(400, "bad_request", "the body's SHA-256 is \(digest), not the declared \(upload.sha256)"),
                                       on: c, keepAlive: keepAlive)
        }
        state.completeUpload(uploadId)
        state.publish(modelId: upload.modelId, version: upload.version,
                      artifact: StoredArtifact(path: file.path, size: contentLength, sha256: digest), source: .file(file),
                      visibility: upload.visibility, format: upload.format, organization: upload.organization)
        let answer: [String: Any] = ["uploadId": uploadId, "modelId": upload.modelId, "version": upload.version,
                                     "size": contentLength, "sha256": digest]
        return ResponseWriter.send(.json(200, answer), on: c, keepAlive: keepAlive, fault: fault)
    }
}
