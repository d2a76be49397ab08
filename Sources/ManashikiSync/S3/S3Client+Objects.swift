import Foundation
import Manashiki

extension S3Client {
    /// What `HEAD` says of an object.
    struct ObjectHead: Sendable, Hashable {
        var size: Int64
        /// Our `x-amz-meta-sha256`, when the object has it.
        var sha256: String?
        var etag: String?
    }

    /// One entry of a listing.
    struct ListedObject: Sendable, Hashable {
        var key: String
        var size: Int64
    }

    /// The metadata header carrying a blob's SHA-256.
    static let sha256Metadata = "x-amz-meta-sha256"

    /// `HEAD` of `key`; nil when there is no such object.
    func headObject(_ key: String) async throws -> ObjectHead? {
        let response = try await perform(Operation(name: "HeadObject", method: "HEAD", key: key, accepts: [404], maxBody: 64 << 10))
        guard response.status != 404 else { return nil }
        guard let size = response.head.contentLength else {
            throw S3Error(kind: .response, operation: "HeadObject", bucket: bucket, key: key, status: response.status,
                          message: "the answer has no Content-Length", hint: "check that the endpoint is an S3 API")
        }
        return ObjectHead(size: size, sha256: response.head.headers[Self.sha256Metadata], etag: response.head.headers["ETag"])
    }

    /// The whole of a small object (an index); nil when there is no such object.
    func getObject(_ key: String, maxBytes: Int) async throws -> Data? {
        let response = try await perform(Operation(name: "GetObject", key: key, headers: ["Accept-Encoding": "identity"], accepts: [404], maxBody: maxBytes))
        return response.status == 404 ? nil : response.body
    }

    /// `PUT` of a whole object whose SHA-256 is `sha256`: the payload hash the store checks
    /// the bytes against, and `x-amz-meta-sha256` on the object.
    @discardableResult
    func putObject(_ key: String, body: Data, sha256: String, contentType: String) async throws -> String? {
        let response = try await perform(Operation(name: "PutObject", method: "PUT", key: key,
                                                   headers: ["Content-Type": contentType, Self.sha256Metadata: sha256],
                                                   body: body, payloadHash: sha256, idleTimeout: 120))
        return response.head.headers["ETag"]
    }

    /// Every object under `prefix` (`ListObjectsV2`, a page of up to 1,000 at a time).
    func listObjects(prefix: String) async throws -> [ListedObject] {
        var objects: [ListedObject] = []
        var token: String?
        repeat {
            var query: [(String, String?)] = [("list-type", "2"), ("prefix", prefix)]
            if let token { query.append(("continuation-token", token)) }
            let response = try await perform(Operation(name: "ListObjectsV2", query: query, maxBody: 16 << 20))
            let root = try parse(response, operation: "ListObjectsV2")
            for entry in root.children("Contents") {
                guard let key = entry.value("Key"), let size = entry.value("Size").flatMap(Int64.init) else { continue }
                objects.append(ListedObject(key: key, size: size))
            }
            token = root.value("IsTruncated") == "true" ? root.value("NextContinuationToken") : nil
        } while token != nil
        return objects
    }

    /// The XML root of a 2xx answer.
    func parse(_ response: HTTPResponse, operation: String, key: String? = nil) throws -> S3XML.Element {
        do { return try S3XML(response.body).root } catch {
            throw S3Error(kind: .response, operation: operation, bucket: bucket, key: key, status: response.status,
                          message: "the answer is \(error)", hint: "check that the endpoint is an S3 API (and not a proxy's or a login page)")
        }
    }
}
