import Foundation
import Manashiki
import ManashikiCore

/// Where a bucket's requests go, and how they name it, resolved as the AWS SDKs resolve it:
///
/// | what | first of |
/// |---|---|
/// | endpoint | the source's `endpoint` (`--endpoint`), `AWS_ENDPOINT_URL_S3`, `AWS_ENDPOINT_URL`, the profile's `endpoint_url`, else AWS: `https://s3.<region>.amazonaws.com` |
/// | region | the source's `region` (`--region`), `AWS_REGION`, `AWS_DEFAULT_REGION`, the profile's `region`, else `us-east-1` (then corrected once from the bucket's answer) |
/// | addressing | `path` or `virtual` when told; `auto`: path-style for any endpoint that is not AWS, virtual-hosted on AWS unless the bucket name cannot be a host name |
struct S3Endpoint: Sendable, Hashable {
    var scheme: String
    var host: String
    var port: Int?
    /// A path the endpoint itself has (`https://gateway.example/s3`), without a trailing `/`.
    var basePath: String
    var pathStyle: Bool
    /// No endpoint was given: AWS, whose host names the region.
    var isAWS: Bool
    var region: String
    /// Whether the region was given (not the `us-east-1` fallback).
    var regionGiven: Bool
    /// Where the endpoint came from, for messages.
    var origin: String

    /// The endpoint and region of `settings` in `environment` (with the profile's `region` and
    /// `endpoint_url` when the shared config files name them).
    /// - Throws: `S3Error.configuration` for an endpoint that is not an absolute http(s) URL
    ///   without credentials, or plain http to another host without `allowHTTP`.
    static func resolve(_ settings: S3Settings, variables: [String: String], profile: AWSProfile?) throws -> S3Endpoint {
        func variable(_ name: String) -> String? { variables[name].flatMap { $0.isEmpty ? nil : $0 } }
        var endpoint: (URL, String)?
        if let given = settings.endpoint { endpoint = (given, "the source's endpoint") }
        else if let text = variable("AWS_ENDPOINT_URL_S3") { endpoint = (try parse(text, origin: "AWS_ENDPOINT_URL_S3"), "AWS_ENDPOINT_URL_S3") }
        else if let text = variable("AWS_ENDPOINT_URL") { endpoint = (try parse(text, origin: "AWS_ENDPOINT_URL"), "AWS_ENDPOINT_URL") }
        else if let text = profile?.value("endpoint_url") { endpoint = (try parse(text, origin: "the profile's endpoint_url"), "endpoint_url of \(profile!.label)") }
        let regionGiven = settings.region ?? variable("AWS_REGION") ?? variable("AWS_DEFAULT_REGION") ?? profile?.value("region")
        let region = regionGiven ?? "us-east-1"
        guard let (url, origin) = endpoint else {
            let pathStyle = settings.addressing == .path || (settings.addressing == .auto && !settings.location.isVirtualHostable)
            return S3Endpoint(scheme: "https", host: awsHost(region), port: nil, basePath: "", pathStyle: pathStyle, isAWS: true,
                              region: region, regionGiven: regionGiven != nil, origin: "AWS")
        }
        let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        let scheme = components?.scheme?.lowercased() ?? "https"
        guard let host = components?.host, !host.isEmpty else {
            throw S3Error.configuration("the endpoint from \(origin) has no host", hint: "write it like https://minio.example:9000")
        }
        if scheme == "http" && !settings.allowsPlainHTTP && !LoopbackHost.matches(host) {
            throw S3Error.configuration("the endpoint \(url.absoluteString) is plain http to another host",
                                        hint: "use https, or add \"allowHTTP\": true to the source — requests are signed, but anyone on the path sees which models are fetched and could replay a request")
        }
        var basePath = components?.percentEncodedPath ?? ""
        while basePath.hasSuffix("/") { basePath.removeLast() }
        return S3Endpoint(scheme: scheme, host: host.lowercased(), port: components?.port, basePath: basePath,
                          pathStyle: settings.addressing != .virtual, isAWS: false, region: region, regionGiven: regionGiven != nil, origin: origin)
    }

    /// An endpoint URL from the environment or a profile.
    static func parse(_ text: String, origin: String) throws -> URL {
        guard let c = URLComponents(string: text), let scheme = c.scheme?.lowercased(), scheme == "https" || scheme == "http",
              c.host?.isEmpty == false, c.user == nil, c.password == nil, c.query == nil, let url = c.url else {
            throw S3Error.configuration("\(origin) is not an http(s) URL without credentials or query (the value is not shown)",
                                        hint: "set it like https://minio.example:9000")
        }
        return url
    }

    /// `s3.<region>.amazonaws.com` (`.amazonaws.com.cn` in China).
    static func awsHost(_ region: String) -> String {
        region.hasPrefix("cn-") ? "s3.\(region).amazonaws.com.cn" : "s3.\(region).amazonaws.com"
    }

    /// The same endpoint signing for `region` (on AWS, its host names the region too).
    func inRegion(_ region: String) -> S3Endpoint {
        var moved = self
        moved.region = region
        moved.regionGiven = true
        if isAWS { moved.host = Self.awsHost(region) }
        return moved
    }

    /// The URL of `key` in `bucket` (nil: the bucket itself), with `query` (names and values
    /// unencoded; a nil value is a bare name such as `uploads`).
    func url(bucket: String, key: String?, query: [(String, String?)] = []) -> URL {
        var c = URLComponents()
        c.scheme = scheme
        c.port = port
        let encodedKey = key.map { SigV4Canonical.encode($0, keepingSlash: true) } ?? ""
        if pathStyle {
            c.host = host
            c.percentEncodedPath = basePath + "/" + SigV4Canonical.encode(bucket) + (key == nil ? "" : "/" + encodedKey)
        } else {
            c.host = bucket + "." + host
            c.percentEncodedPath = basePath + "/" + encodedKey
        }
        if !query.isEmpty {
            c.percentEncodedQuery = query.map { name, value in
                SigV4Canonical.encode(name) + (value.map { "=" + SigV4Canonical.encode($0) } ?? "")
            }.joined(separator: "&")
        }
        return c.url!
    }

    /// `https://minio.site:9000` or `https://s3.eu-west-1.amazonaws.com`, for messages.
    var shown: String { "\(scheme)://\(host)" + (port.map { ":\($0)" } ?? "") + basePath }
}
