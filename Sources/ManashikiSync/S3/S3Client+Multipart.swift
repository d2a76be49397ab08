import Foundation
import ManashikiCore
import Manashiki

extension S3Client {
    /// An upload in progress under a prefix.
    struct PendingUpload: Sendable, Hashable {
        var key: String
        var uploadId: String
        var initiated: Date?
    }

    /// `CreateMultipartUpload`: the upload id; the object gets `x-amz-meta-sha256` when completed.
    func createMultipartUpload(_ key: String, sha256: String, contentType: String) async throws -> String {
        let response = try await perform(Operation(name: "CreateMultipartUpload", method: "POST", key: key, query: [("uploads", nil)],
                                                   headers: ["Content-Type": contentType, Self.sha256Metadata: sha256], body: Data()))
        guard let id = try parse(response, operation: "CreateMultipartUpload", key: key).value("UploadId"), !id.isEmpty else {
            throw S3Error(kind: .response, operation: "CreateMultipartUpload", bucket: bucket, key: key, status: response.status,
                          message: "the answer names no UploadId", hint: "check that the endpoint is an S3 API")
        }
        return id
    }

    /// `UploadPart` number `number` (1-based) with its SHA-256 as the signed payload hash: the
    /// part's `ETag`.
    func uploadPart(_ key: String, uploadId: String, number: Int, body: Data, sha256: String) async throws -> String {
        let response = try await perform(Operation(name: "UploadPart", method: "PUT", key: key,
                                                   query: [("partNumber", "\(number)"), ("uploadId", uploadId)],
                                                   headers: ["Content-Type": "application/octet-stream"], body: body, payloadHash: sha256, idleTimeout: 120))
        guard let etag = response.head.headers["ETag"] else {
            throw S3Error(kind: .response, operation: "UploadPart", bucket: bucket, key: key, status: response.status,
                          message: "the answer of part \(number) has no ETag", hint: "check that the endpoint is an S3 API")
        }
        return etag
    }

    /// `CompleteMultipartUpload` with the parts' ETags in order. A 200 whose body is an
    /// `<Error>` (S3 may answer so after a long assembly) is a failure.
    func completeMultipartUpload(_ key: String, uploadId: String, etags: [String]) async throws {
        var xml = "<CompleteMultipartUpload xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
        for (i, etag) in etags.enumerated() {
            xml += "<Part><PartNumber>\(i + 1)</PartNumber><ETag>\(Self.escaped(etag))</ETag></Part>"
        }
        xml += "</CompleteMultipartUpload>"
        let body = Data(xml.utf8)
        let response = try await perform(Operation(name: "CompleteMultipartUpload", method: "POST", key: key, query: [("uploadId", uploadId)],
                                                   headers: ["Content-Type": "application/xml"], body: body,
                                                   payloadHash: SHA256Hasher.hash(body).hex, idleTimeout: 300))
        let root = try parse(response, operation: "CompleteMultipartUpload", key: key)
        if root.name == "Error" {
            throw S3Error(kind: .response, operation: "CompleteMultipartUpload", bucket: bucket, key: key, status: response.status,
                          code: root.value("Code"), message: root.value("Message") ?? "", hint: "export again")
        }
    }

    /// `AbortMultipartUpload` (its parts are deleted; a 404 means it is gone already).
    func abortMultipartUpload(_ key: String, uploadId: String) async throws {
        _ = try await perform(Operation(name: "AbortMultipartUpload", method: "DELETE", key: key, query: [("uploadId", uploadId)], accepts: [404]))
    }

    /// The multipart uploads in progress under `prefix` (`ListMultipartUploads`, all pages).
    func listMultipartUploads(prefix: String) async throws -> [PendingUpload] {
        var uploads: [PendingUpload] = []
        var marker: (key: String, id: String)?
        repeat {
            var query: [(String, String?)] = [("uploads", nil), ("prefix", prefix)]
            if let marker { query += [("key-marker", marker.key), ("upload-id-marker", marker.id)] }
            let response = try await perform(Operation(name: "ListMultipartUploads", query: query, maxBody: 16 << 20))
            let root = try parse(response, operation: "ListMultipartUploads")
            for upload in root.children("Upload") {
                guard let key = upload.value("Key"), let id = upload.value("UploadId") else { continue }
                uploads.append(PendingUpload(key: key, uploadId: id, initiated: upload.value("Initiated").flatMap(ISO8601.date(from:))))
            }
            if root.value("IsTruncated") == "true", let key = root.value("NextKeyMarker"), let id = root.value("NextUploadIdMarker") {
                marker = (key, id)
            } else {
                marker = nil
            }
        } while marker != nil
        return uploads
    }

    /// Text escaped for an XML element.
    static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
