import Foundation

/// The storage origin, standing in for the CDN: signed `GET`/`HEAD` of artifacts with Range
/// support, and signed `PUT` of uploads.
struct StorageOrigin: HTTPRequestHandler {
    let state: RegistryState

    /// The path of a version's bytes.
    static func blobPath(modelId: String, version: String) -> String {
        "/blobs/\(modelId)/" + (version.addingPercentEncoding(withAllowedCharacters: segmentAllowed) ?? version)
    }

    /// The path an upload is `PUT` to.
    static func uploadPath(_ uploadId: String) -> String { "/uploads/\(uploadId)" }

    /// The `Last-Modified` of every object (the registry's objects never change under a URL).
    static let published = Date(timeIntervalSince1970: 1_767_225_600)

    private static let segmentAllowed: CharacterSet = {
        var set = CharacterSet.alphanumerics
        set.insert(charactersIn: "-._~")
        return set
    }()

    func handle(_ request: ServerRequest, contentLength: Int, on connection: HTTPConnection) -> Bool {
        state.log.record(request, origin: .storage)
        let s = request.segments
        if s.count == 3, s[0] == "blobs" {
            guard request.method == "GET" || request.method == "HEAD" else {
                return reject(.error(405, "method_not_allowed", "use GET"), request, contentLength, connection)
            }
            return download(request, modelId: s[1], version: s[2], contentLength: contentLength, on: connection)
        }
        if s.count == 2, s[0] == "uploads" {
            guard request.method == "PUT" else {
                return reject(.error(405, "method_not_allowed", "use PUT"), request, contentLength, connection)
            }
            return UploadReceiver(state: state).receive(request, uploadId: s[1], contentLength: contentLength, on: connection)
        }
        return reject(.error(404, "not_found", "no such object"), request, contentLength, connection)
    }

    /// Answers without reading the body; closes the connection if a body may be on its way.
    private func reject(_ response: ServerResponse, _ request: ServerRequest, _ contentLength: Int, _ c: HTTPConnection) -> Bool {
        var response = response
        if contentLength > 0 { response.closeConnection = true }
        return ResponseWriter.send(response, on: c, headOnly: request.method == "HEAD", keepAlive: request.wantsKeepAlive)
    }

    private func download(_ request: ServerRequest, modelId: String, version: String, contentLength: Int,
                          on connection: HTTPConnection) -> Bool {
        let headOnly = request.method == "HEAD"
        let fault = state.faults.take(.storage, modelId: modelId)
        if let answer = FaultResponses.answer(for: fault, request: request, base: state.storageBase, origin: .storage) {
            return reject(answer, request, contentLength, connection)
        }
        switch state.signer.verify(method: "GET", path: request.path, query: request.queryItems) {
        case .valid: break
        case .invalid: return reject(.error(403, "invalid_signature", "the URL signature is missing or wrong"), request, contentLength, connection)
        case .expired(let status):
            return reject(.error(status, status == 410 ? "url_gone" : "url_expired", "the signed URL has expired"), request, contentLength, connection)
        }
        if let epoch = request.queryItems["epoch"].flatMap(Int.init), epoch < state.urlEpoch.current {
            return reject(.error(403, "url_expired", "the signed URL has expired"), request, contentLength, connection)
        }
        guard let blob = state.blob(modelId, version) else {
            return reject(.error(404, "not_found", "no such object"), request, contentLength, connection)
        }
        let total = Int64(blob.size)
        var response = ServerResponse(status: 200, headers: [("Content-Type", "application/octet-stream"),
                                                              ("Accept-Ranges", "bytes"), ("ETag", "\"\(blob.sha256)\""),
                                                              ("Last-Modified", HTTPDate.format(Self.published))],
                                      body: .file(path: blob.path, offset: 0, length: total))
        if fault != .ignoreRange, let header = request.header("Range") {
            switch ByteRange.parse(header, total: total) {
            case .none:
                break
            case .unsatisfiable:
                var answer = ServerResponse.error(416, "range_not_satisfiable", "the range starts beyond the \(total)-byte object")
                answer.headers.append(("Content-Range", "bytes */\(total)"))
                return reject(answer, request, contentLength, connection)
            case .range(let first, let last):
                response.status = 206
                response.headers.append(("Content-Range", "bytes \(first)-\(last)/\(total)"))
                response.body = .file(path: blob.path, offset: first, length: last - first + 1)
            }
        }
        if fault == .replacedObject {
            response.headers.removeAll { $0.0 == "ETag" || $0.0 == "Last-Modified" }
            response.headers += [("ETag", "\"replaced-\(blob.sha256.prefix(16))\""), ("Last-Modified", HTTPDate.format(Date()))]
        }
        if case .expireMidBody? = fault { state.urlEpoch.withLock { $0 += 1 } }
        if contentLength > 0 { response.closeConnection = true }
        state.gauge.begin()
        // What really went out body bytes, counted when the answer ends: a client that
        // hangs up mid-body is charged only the bytes sent before it did.
        let sentBefore = connection.bodyBytesSent
        defer {
            if !headOnly { state.gauge.served(connection.bodyBytesSent - sentBefore) }
            state.gauge.end()
        }
        return ResponseWriter.send(response, on: connection, headOnly: headOnly, keepAlive: request.wantsKeepAlive, fault: fault)
    }
}
