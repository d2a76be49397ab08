import Foundation
import ManashikiCore
import Manashiki

/// Credentials served over HTTP by the platform: the container's endpoint (ECS, EKS Pod
/// Identity) and the EC2 instance metadata service (IMDSv2 only: a session token first, never
/// the unauthenticated v1 path).
enum AWSEndpointCredentials {
    /// The JSON both endpoints answer with.
    struct Document: Decodable {
        var Code: String?
        var Message: String?
        var AccessKeyId: String?
        var SecretAccessKey: String?
        var Token: String?
        var Expiration: String?
    }

    /// Container credentials: `AWS_CONTAINER_CREDENTIALS_RELATIVE_URI` (on
    /// `http://169.254.170.2`) or `AWS_CONTAINER_CREDENTIALS_FULL_URI` (https, or http only to
    /// this machine or the ECS/EKS agent's addresses), with the authorization token from
    /// `AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE` (read at each refresh) or
    /// `AWS_CONTAINER_AUTHORIZATION_TOKEN`. Nil when neither URI is set.
    static func container(_ environment: SyncEnvironment, transport: any HTTPTransport) -> AWSCredentialFetcher {
        AWSCredentialFetcher(name: "container credentials") {
            let v = environment.variables
            let url: URL
            if let relative = v["AWS_CONTAINER_CREDENTIALS_RELATIVE_URI"], !relative.isEmpty {
                guard let u = URL(string: "http://169.254.170.2" + (relative.hasPrefix("/") ? relative : "/" + relative)) else {
                    throw S3Error.credentials("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI is not a path", hint: "unset it, or fix the task definition")
                }
                url = u
            } else if let full = v["AWS_CONTAINER_CREDENTIALS_FULL_URI"], !full.isEmpty {
                url = try fullURI(full)
            } else {
                return nil
            }
            var headers: HTTPHeaders = ["Accept": "application/json"]
            if let file = v["AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE"], !file.isEmpty {
                guard let token = try? environment.readFile(URL(fileURLWithPath: file)).trimmingCharacters(in: .whitespacesAndNewlines) else {
                    throw S3Error.credentials("cannot read AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE \(file)", hint: "check that it exists and that this user may read it")
                }
                headers["Authorization"] = token
            } else if let token = v["AWS_CONTAINER_AUTHORIZATION_TOKEN"], !token.isEmpty {
                headers["Authorization"] = token
            }
            let origin = "container credentials (\(url.host ?? "")\(url.port.map { ":\($0)" } ?? ""))"
            let request = HTTPRequest(url: url, headers: headers, idleTimeout: 5, maxBufferedBodyBytes: 64 << 10)
            let response = try await send(request, transport: transport, what: origin, timeout: 5)
            guard response.status == 200 else {
                throw S3Error.credentials("the \(origin) answered HTTP \(response.status)", hint: "check the task's or pod's role association and the authorization token")
            }
            return try credentials(response.body, origin: origin)
        }
    }

    /// The hosts a plain-http full URI may name (the AWS SDKs' rule): this machine, the ECS
    /// agent (169.254.170.2) and the EKS Pod Identity agent (169.254.170.23, fd00:ec2::23).
    static func fullURI(_ text: String) throws -> URL {
        guard let c = URLComponents(string: text), let scheme = c.scheme?.lowercased(), let host = c.host, let url = c.url,
              scheme == "https" || (scheme == "http" && (LoopbackHost.matches(host) || ["169.254.170.2", "169.254.170.23", "fd00:ec2::23", "[fd00:ec2::23]"].contains(host))) else {
            throw S3Error.credentials("AWS_CONTAINER_CREDENTIALS_FULL_URI must be https, or http to this machine or the container agent (169.254.170.2, 169.254.170.23)",
                                      hint: "fix the variable (its value is not shown)")
        }
        return url
    }

    /// EC2 instance metadata, IMDSv2: `PUT /latest/api/token`, then the role's credentials with
    /// that token. `AWS_EC2_METADATA_DISABLED=true` turns it off; `AWS_EC2_METADATA_SERVICE_ENDPOINT`
    /// moves it; each request gets `AWS_METADATA_SERVICE_TIMEOUT` seconds (default 1). No answer
    /// means "not on EC2": nil, quickly, so a laptop does not wait.
    static func instanceMetadata(_ environment: SyncEnvironment, transport: any HTTPTransport) -> AWSCredentialFetcher {
        AWSCredentialFetcher(name: "instance metadata (IMDSv2)") {
            let v = environment.variables
            if v["AWS_EC2_METADATA_DISABLED"]?.lowercased() == "true" { return nil }
            var base = v["AWS_EC2_METADATA_SERVICE_ENDPOINT"].flatMap { $0.isEmpty ? nil : $0 } ?? "http://169.254.169.254"
            while base.hasSuffix("/") { base.removeLast() }
            let timeout = v["AWS_METADATA_SERVICE_TIMEOUT"].flatMap(Double.init).map { max(0.1, min($0, 30)) } ?? 1
            guard let tokenURL = URL(string: base + "/latest/api/token"), let rolesURL = URL(string: base + "/latest/meta-data/iam/security-credentials/") else {
                throw S3Error.credentials("AWS_EC2_METADATA_SERVICE_ENDPOINT is not a URL", hint: "fix or unset it")
            }
            let tokenRequest = HTTPRequest(method: "PUT", url: tokenURL, headers: ["X-aws-ec2-metadata-token-ttl-seconds": "21600"], body: Data(),
                                           idleTimeout: timeout, maxBufferedBodyBytes: 4 << 10)
            guard let tokenAnswer = try? await send(tokenRequest, transport: transport, what: "the instance metadata service", timeout: timeout), tokenAnswer.status == 200 else {
                return nil // not on EC2, or IMDSv2 disabled for this instance
            }
            let token = String(decoding: tokenAnswer.body, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            let headers: HTTPHeaders = ["X-aws-ec2-metadata-token": token]
            let roles = try await send(HTTPRequest(url: rolesURL, headers: headers, idleTimeout: timeout, maxBufferedBodyBytes: 4 << 10),
                                       transport: transport, what: "the instance metadata service", timeout: timeout)
            let role = String(decoding: roles.body, as: UTF8.self).split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
            guard roles.status == 200, !role.isEmpty, let roleURL = URL(string: rolesURL.absoluteString + SigV4Canonical.encode(role)) else {
                return nil // an instance without a role
            }
            let origin = "instance metadata (IMDSv2, role \(role))"
            let answer = try await send(HTTPRequest(url: roleURL, headers: headers, idleTimeout: timeout, maxBufferedBodyBytes: 64 << 10), transport: transport, what: origin, timeout: timeout)
            guard answer.status == 200 else { throw S3Error.credentials("the \(origin) answered HTTP \(answer.status)", hint: "check the instance profile") }
            return try credentials(answer.body, origin: origin)
        }
    }

    /// Credentials from an endpoint's JSON.
    static func credentials(_ body: Data, origin: String) throws -> AWSCredentials {
        guard let document = try? StrictJSONDecoder().decode(Document.self, from: body) else {
            throw S3Error.credentials("the \(origin) did not answer with credentials JSON", hint: "check that the endpoint is the credentials endpoint")
        }
        if let code = document.Code, code != "Success" {
            throw S3Error.credentials("the \(origin) answered \(code)" + (document.Message.map { " (\($0))" } ?? ""), hint: "check the role association")
        }
        guard let id = document.AccessKeyId, let secret = document.SecretAccessKey else {
            throw S3Error.credentials("the \(origin) answered without AccessKeyId and SecretAccessKey", hint: "check the role association")
        }
        return AWSCredentials(accessKeyId: id, secretAccessKey: secret, sessionToken: document.Token,
                              expiration: document.Expiration.flatMap(ISO8601.date(from:)), origin: origin)
    }

    /// Sends a small request, failing after `timeout` seconds whatever the transport's own timeouts.
    static func send(_ request: HTTPRequest, transport: any HTTPTransport, what: String, timeout: TimeInterval) async throws -> HTTPResponse {
        try await withThrowingTaskGroup(of: HTTPResponse?.self) { group in
            group.addTask { try await transport.send(request) }
            group.addTask { try await Task.sleep(for: .seconds(timeout)); return nil }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let response = first else {
                throw S3Error.credentials("\(what) did not answer within \(timeout) s", hint: "check the network path to it")
            }
            return response
        }
    }
}
