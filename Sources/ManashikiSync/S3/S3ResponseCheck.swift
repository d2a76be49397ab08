import Foundation
import Manashiki

/// The one place an S3 error answer becomes an `S3Error`: the code and message from the XML
/// body (or, for a `HEAD`, from the status), the region the store names, and what to do, worded
/// for the operation and the credentials used.
enum S3ResponseCheck {
    /// The IAM action an operation needs.
    static func action(_ operation: String) -> String {
        switch operation {
        case "HeadObject", "GetObject": return "s3:GetObject"
        case "PutObject", "CreateMultipartUpload", "UploadPart", "CompleteMultipartUpload": return "s3:PutObject"
        case "AbortMultipartUpload": return "s3:AbortMultipartUpload"
        case "ListMultipartUploads": return "s3:ListBucketMultipartUploads"
        default: return "s3:ListBucket"
        }
    }

    static func failure(_ response: HTTPResponse, operation: S3Client.Operation, client: S3Client) async -> S3Error {
        let xml = try? S3XML(response.body).root
        let body = xml?.name == "Error" ? xml : nil
        let status = response.status
        let code = body?.value("Code") ?? statusCode(status)
        var failure = S3Error(kind: .response, operation: operation.name, bucket: client.bucket, key: operation.key, status: status, code: code,
                              message: body?.value("Message") ?? "", hint: "", requestId: body?.value("RequestId") ?? response.head.headers["x-amz-request-id"])
        failure.region = response.head.headers["x-amz-bucket-region"] ?? body?.value("Region")
        failure.hint = await hint(failure, operation: operation, client: client)
        return failure
    }

    /// The code a body-less answer (a `HEAD`) stands for.
    static func statusCode(_ status: Int) -> String {
        switch status {
        case 301: return "PermanentRedirect"
        case 307: return "TemporaryRedirect"
        case 400: return "BadRequest"
        case 403: return "Forbidden"
        case 404: return "NotFound"
        case 409: return "Conflict"
        case 412: return "PreconditionFailed"
        case 429: return "SlowDown"
        case 503: return "ServiceUnavailable"
        default: return status >= 500 ? "InternalError" : "HTTP\(status)"
        }
    }

    static func hint(_ failure: S3Error, operation: S3Client.Operation, client: S3Client) async -> String {
        let endpoint = client.endpoint
        let source = await client.provider.sourceName
        let anonymous = source == "anonymous" || source.hasPrefix("none found")
        let resource = "arn:aws:s3:::\(client.bucket)" + (operation.key.map { "/\($0)" } ?? "")
        switch failure.code ?? "" {
        case "SignatureDoesNotMatch":
            return "the secret of the credentials from \(source) does not match their access key id at \(endpoint.shown), or a proxy changed the request: check the secret (and the endpoint: keys from one store do not work at another)"
        case "InvalidAccessKeyId":
            return "\(endpoint.shown) does not know the access key id of the credentials from \(source): check the key, and that the endpoint (from \(endpoint.origin)) is the store that issued it"
        case "AccessDenied", "Forbidden", "AllAccessDisabled":
            if anonymous {
                return "requests were anonymous (\(source); searched: \(client.provider.searchedPlaces)): give credentials (AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, AWS_PROFILE, or the source's \"credentials\"), or make the bucket public-read"
            }
            return "the credentials from \(source) may not \(action(operation.name)) on \(resource): grant it (docs/fleets-and-images.md, \"IAM policies\"), or use other credentials"
        case "NoSuchBucket":
            return "there is no bucket \(client.bucket) at \(endpoint.shown) (from \(endpoint.origin)): check the bucket name, the endpoint and the region"
        case "PermanentRedirect", "TemporaryRedirect", "AuthorizationHeaderMalformed", "IllegalLocationConstraintException":
            return "the bucket is in another region than \(endpoint.region) and the store did not say which: set the source's \"region\" (or --region)"
        case "ExpiredToken", "TokenRefreshRequired", "InvalidToken":
            return "the session token of the credentials from \(source) has expired or is invalid and could not be refreshed: get new credentials"
        case "RequestTimeTooSkewed":
            return "this machine's clock is too far from the store's: set the clock (NTP)"
        case "SlowDown", "ServiceUnavailable", "InternalError", "RequestTimeout":
            return "the store is overloaded or failing: try again later (with fewer parallel requests: --concurrency)"
        case "NoSuchUpload":
            return "the multipart upload was aborted meanwhile (another export, or a lifecycle rule): export again"
        case "EntityTooSmall":
            return "a part is smaller than the store's minimum (5 MiB on S3): use a larger --chunk-size"
        case "EntityTooLarge":
            return "the object is larger than the store accepts in one request: use a smaller --chunk-size"
        case "InvalidBucketName":
            return "the store does not accept the bucket name \(client.bucket)"
        case "XAmzContentSHA256Mismatch", "BadDigest":
            return "the bytes that arrived are not the bytes sent (a proxy or the network changed them): try again, and check any proxy"
        case "NotFound", "NoSuchKey":
            return ""
        default:
            return failure.status.map { $0 >= 500 } == true ? "the store failed: try again later" : "see the store's message; the operation needs \(action(operation.name)) on \(resource)"
        }
    }
}
