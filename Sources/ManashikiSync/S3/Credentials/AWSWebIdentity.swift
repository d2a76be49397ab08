import Foundation
import Manashiki

/// Web identity: a role assumed with an OIDC token from a file (`AWS_ROLE_ARN` +
/// `AWS_WEB_IDENTITY_TOKEN_FILE`, IRSA on EKS, or a profile's `role_arn` +
/// `web_identity_token_file`), exchanged at STS (`AssumeRoleWithWebIdentity`, an unsigned request)
/// for temporary credentials. The token file is read again at each refresh (the cluster rotates
/// it); the token goes to STS only.
///
/// STS is `AWS_ENDPOINT_URL_STS`, else `AWS_ENDPOINT_URL`, else the regional endpoint
/// (`https://sts.<region>.amazonaws.com`, the region from `AWS_REGION`, `AWS_DEFAULT_REGION` or
/// the profile), else the global one (`https://sts.amazonaws.com`).
struct AWSWebIdentity: Sendable {
    var roleArn: String
    var tokenFile: String
    var sessionName: String?
    var origin: String
    var environment: SyncEnvironment
    var transport: any HTTPTransport
    /// The profile's region, when the profile names one.
    var region: String?

    /// The fetcher for `AWS_ROLE_ARN` + `AWS_WEB_IDENTITY_TOKEN_FILE` (nil when not both set).
    static func fromEnvironment(_ environment: SyncEnvironment, transport: any HTTPTransport) -> AWSCredentialFetcher {
        let v = environment.variables
        let role = v["AWS_ROLE_ARN"] ?? ""
        return AWSCredentialFetcher(name: "web identity (\(role))") {
            guard let role = v["AWS_ROLE_ARN"], !role.isEmpty, let file = v["AWS_WEB_IDENTITY_TOKEN_FILE"], !file.isEmpty else { return nil }
            return try await AWSWebIdentity(roleArn: role, tokenFile: file, sessionName: v["AWS_ROLE_SESSION_NAME"],
                                            origin: "web identity (\(role), token file \(file))", environment: environment, transport: transport).fetch()
        }
    }

    /// The STS endpoint.
    func endpoint() throws -> URL {
        let v = environment.variables
        for name in ["AWS_ENDPOINT_URL_STS", "AWS_ENDPOINT_URL"] {
            if let text = v[name], !text.isEmpty { return try S3Endpoint.parse(text, origin: name) }
        }
        if let region = v["AWS_REGION"].flatMap({ $0.isEmpty ? nil : $0 }) ?? v["AWS_DEFAULT_REGION"].flatMap({ $0.isEmpty ? nil : $0 }) ?? region {
            return URL(string: "https://sts.\(region).amazonaws.com" + (region.hasPrefix("cn-") ? ".cn" : ""))!
        }
        return URL(string: "https://sts.amazonaws.com")!
    }

    /// Exchanges the token for credentials (up to three attempts when STS or the identity
    /// provider fails for a moment).
    /// - Throws: `S3Error` (credentials) naming the role, the token file and STS's code.
    func fetch() async throws -> AWSCredentials {
        let token: String
        do { token = try environment.readFile(URL(fileURLWithPath: tokenFile)).trimmingCharacters(in: .whitespacesAndNewlines) } catch {
            throw S3Error.credentials("cannot read the web identity token file \(tokenFile) (for \(roleArn))",
                                      hint: "check that it exists and that this user may read it (on EKS: the pod's service account has the role annotation)")
        }
        guard !token.isEmpty else { throw S3Error.credentials("the web identity token file \(tokenFile) is empty", hint: "check the projected token volume") }
        let sts = try endpoint()
        let session = sessionName.flatMap { $0.isEmpty ? nil : $0 } ?? "manashiki-sync-\(Int(Date().timeIntervalSince1970))"
        let form = [("Action", "AssumeRoleWithWebIdentity"), ("Version", "2011-06-15"), ("RoleArn", roleArn),
                    ("RoleSessionName", session), ("WebIdentityToken", token)]
            .map { "\($0.0)=\(SigV4Canonical.encode($0.1))" }.joined(separator: "&")
        let request = HTTPRequest(method: "POST", url: sts, headers: ["Content-Type": "application/x-www-form-urlencoded; charset=utf-8", "Accept": "application/xml"],
                                  body: Data(form.utf8), idleTimeout: 15, maxBufferedBodyBytes: 256 << 10)
        var attempt = 1
        while true {
            do {
                return try await exchange(request, sts: sts)
            } catch let error as S3Error where error.isRetryable && attempt < 3 {
                try await Task.sleep(for: Backoff(base: .milliseconds(200), cap: .seconds(2)).delay(after: attempt))
                attempt += 1
            }
        }
    }

    private func exchange(_ request: HTTPRequest, sts: URL) async throws -> AWSCredentials {
        let response: HTTPResponse
        do { response = try await transport.send(request) } catch {
            var failure = S3Error.credentials("STS at \(sts.host ?? "?") could not be reached for \(origin): \(SyncFailure(error).message)",
                                              hint: "check the network path to STS (a proxy, NO_PROXY), or AWS_ENDPOINT_URL_STS")
            failure.apiError = error as? APIError
            failure.kind = .unreachable
            throw failure
        }
        let xml = try? S3XML(response.body).root
        guard response.status == 200 else {
            let error = xml?.child("Error")
            let code = error?.value("Code")
            var failure = S3Error.credentials("STS refused AssumeRoleWithWebIdentity for \(origin): HTTP \(response.status)" + (code.map { " \($0)" } ?? "")
                                                + (error?.value("Message").map { " (\($0))" } ?? ""),
                                              hint: code == "InvalidIdentityToken" || code == "ExpiredTokenException"
                                                ? "the token in \(tokenFile) is not accepted: check the role's trust policy (its OIDC provider and audience) and that the file is being refreshed"
                                                : "check that the role exists and trusts this identity provider")
            if response.status >= 500 || code == "IDPCommunicationError" { failure.kind = .response; failure.status = response.status; failure.code = code }
            throw failure
        }
        guard let credentials = xml?.child("AssumeRoleWithWebIdentityResult")?.child("Credentials"),
              let id = credentials.value("AccessKeyId"), let secret = credentials.value("SecretAccessKey") else {
            throw S3Error.credentials("STS answered AssumeRoleWithWebIdentity for \(origin) without credentials", hint: "check AWS_ENDPOINT_URL_STS: it may not be STS")
        }
        return AWSCredentials(accessKeyId: id, secretAccessKey: secret, sessionToken: credentials.value("SessionToken"),
                              expiration: credentials.value("Expiration").flatMap(ISO8601.date(from:)), origin: origin)
    }
}
