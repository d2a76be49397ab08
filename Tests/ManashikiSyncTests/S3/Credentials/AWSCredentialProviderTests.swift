import Foundation
import ManashikiCore
import Manashiki
import ManashikiTestSupport
import Testing
@testable import ManashikiSync

/// The credential chain with injected environments, files and a closure transport standing in
/// for STS, the container agent and the instance metadata service (the real web identity
/// exchange against an STS stand-in is in the CLI's bucket tests).
@Suite("AWS credentials: the SDKs' chain, web identity, container, IMDSv2, refresh before expiry")
struct AWSCredentialProviderTests {
    static func environment(_ variables: [String: String], files: [String: String] = [:]) -> SyncEnvironment {
        SyncEnvironment(variables: variables.merging(["HOME": "/home/u"]) { a, _ in a }, readFile: { url in
            guard let text = files[url.path] else { throw CocoaError(.fileNoSuchFile) }
            return text
        }, runCommand: { argv in
            guard argv.last == "print-creds" else { throw SyncFailure(kind: .terminal, message: "exit 1") }
            return #"{"Version": 1, "AccessKeyId": "AKIAPROCESS", "SecretAccessKey": "process-secret", "SessionToken": "t", "Expiration": "2099-01-01T00:00:00Z"}"#
        })
    }

    static let noNetwork = MockTransport { request in
        Issue.record("unexpected request to \(request.url)")
        return MockResponse(status: 500)
    }

    static func stsAnswer(_ id: String, expires: String) -> MockResponse {
        MockResponse(status: 200, headers: ["Content-Type": "text/xml"], chunks: [Data("""
        <AssumeRoleWithWebIdentityResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><AssumeRoleWithWebIdentityResult>
        <Credentials><AccessKeyId>\(id)</AccessKeyId><SecretAccessKey>sts-secret-\(id)</SecretAccessKey><SessionToken>sts-token-\(id)</SessionToken>
        <Expiration>\(expires)</Expiration></Credentials></AssumeRoleWithWebIdentityResult></AssumeRoleWithWebIdentityResponse>
        """.utf8)])
    }

    @Test("the environment comes first; a half-set pair is an error naming the missing variable, never a value")
    func environmentFirst() async throws {
        let env = Self.environment(["AWS_ACCESS_KEY_ID": "AKIAENV", "AWS_SECRET_ACCESS_KEY": "env-secret", "AWS_SESSION_TOKEN": "env-token", "AWS_PROFILE": "ci"],
                                   files: ["/home/u/.aws/credentials": "[ci]\naws_access_key_id = AKIACI\naws_secret_access_key = x\n"])
        let provider = AWSCredentialProvider.make(.chain, environment: env, transport: Self.noNetwork)
        let found = try #require(try await provider.credentials())
        #expect(found.accessKeyId == "AKIAENV" && found.sessionToken == "env-token" && found.origin == "environment")
        #expect(await provider.sourceName == "environment")
        let half = AWSCredentialProvider.make(.chain, environment: Self.environment(["AWS_ACCESS_KEY_ID": "AKIAENV"]), transport: Self.noNetwork)
        let error = await #expect(throws: S3Error.self) { try await half.credentials() }
        #expect(error?.description.contains("AWS_SECRET_ACCESS_KEY is not set") == true)
    }

    @Test("then the profile AWS_PROFILE names (missing: an error); its credential_process; the default profile only when it has keys")
    func profiles() async throws {
        let files = ["/home/u/.aws/credentials": "[ci]\naws_access_key_id = AKIACI\naws_secret_access_key = ci-secret\n",
                     "/home/u/.aws/config": "[default]\nregion = eu-west-1\n[profile tool]\ncredential_process = print-creds\n"]
        let ci = AWSCredentialProvider.make(.chain, environment: Self.environment(["AWS_PROFILE": "ci", "AWS_EC2_METADATA_DISABLED": "true"], files: files), transport: Self.noNetwork)
        #expect(try await ci.credentials()?.accessKeyId == "AKIACI")
        #expect(await ci.sourceName == "profile ci (/home/u/.aws/credentials)")
        let tool = AWSCredentialProvider.make(.profile("tool"), environment: Self.environment([:], files: files), transport: Self.noNetwork)
        let processed = try #require(try await tool.credentials())
        #expect(processed.accessKeyId == "AKIAPROCESS" && processed.expiration != nil && processed.origin.hasPrefix("credential_process of profile tool"))
        let missing = AWSCredentialProvider.make(.chain, environment: Self.environment(["AWS_PROFILE": "nope"], files: files), transport: Self.noNetwork)
        let error = await #expect(throws: S3Error.self) { try await missing.credentials() }
        #expect(error?.kind == .credentials && error?.description.contains("profile nope is in neither") == true)
        // The default profile has only a region: the chain moves on, and with nothing else requests are anonymous.
        let nothing = AWSCredentialProvider.make(.chain, environment: Self.environment(["AWS_EC2_METADATA_DISABLED": "true"], files: files), transport: Self.noNetwork)
        #expect(try await nothing.credentials() == nil)
        #expect(await nothing.sourceName == "none found (anonymous requests)")
        #expect(nothing.searchedPlaces.contains("profile default") && nothing.searchedPlaces.contains("instance metadata"))
    }

    @Test("anonymous asks nothing; named variables must be set")
    func anonymousAndNamed() async throws {
        let anonymous = AWSCredentialProvider.make(.anonymous, environment: Self.environment(["AWS_ACCESS_KEY_ID": "AKIAENV", "AWS_SECRET_ACCESS_KEY": "s"]), transport: Self.noNetwork)
        #expect(try await anonymous.credentials() == nil)
        #expect(await anonymous.sourceName == "anonymous")
        let named = AWSCredentialProvider.make(.environment(accessKeyId: "MODELS_ID", secretAccessKey: "MODELS_SECRET", sessionToken: nil),
                                               environment: Self.environment(["MODELS_ID": "AKIANAMED", "MODELS_SECRET": "named-secret\n"]), transport: Self.noNetwork)
        let found = try #require(try await named.credentials())
        #expect(found.accessKeyId == "AKIANAMED" && found.secretAccessKey == "named-secret")
        let unset = AWSCredentialProvider.make(.environment(accessKeyId: "MODELS_ID", secretAccessKey: "MODELS_SECRET", sessionToken: nil),
                                               environment: Self.environment([:]), transport: Self.noNetwork)
        await #expect(throws: S3Error.self) { try await unset.credentials() }
    }

    @Test("web identity: AssumeRoleWithWebIdentity at the configured STS with the token read from its file, unsigned; fetched again before expiry, the token re-read")
    func webIdentity() async throws {
        let token = Locked("token-one")
        let answers = Locked(0)
        let sts = MockTransport { request in
            let n = answers.withLock { $0 += 1; return $0 }
            return Self.stsAnswer("ASIASTS\(n)", expires: n == 1 ? "2030-01-01T00:10:00Z" : "2030-01-01T01:10:00Z")
        }
        var env = Self.environment(["AWS_ROLE_ARN": "arn:aws:iam::123456789012:role/reader", "AWS_WEB_IDENTITY_TOKEN_FILE": "/var/run/token",
                                    "AWS_ENDPOINT_URL_STS": "http://127.0.0.1:9/sts/", "AWS_ROLE_SESSION_NAME": "node-7"])
        env.readFile = { url in
            guard url.path == "/var/run/token" else { throw CocoaError(.fileNoSuchFile) }
            return token.current + "\n"
        }
        let clock = Locked(ISO8601.date(from: "2030-01-01T00:00:00Z")!)
        let fetchers = [AWSWebIdentity.fromEnvironment(env, transport: sts)]
        let provider = AWSCredentialProvider(fetchers: fetchers, now: { clock.current })
        #expect(try await provider.credentials()?.accessKeyId == "ASIASTS1")
        #expect(try await provider.credentials()?.accessKeyId == "ASIASTS1")          // kept while far from expiry
        let first = try #require(sts.requests.first)
        #expect(first.method == "POST" && first.url.absoluteString == "http://127.0.0.1:9/sts/" && first.headers["Authorization"] == nil)
        let form = String(decoding: first.body ?? Data(), as: UTF8.self)
        for field in ["Action=AssumeRoleWithWebIdentity", "Version=2011-06-15", "RoleArn=arn%3Aaws%3Aiam%3A%3A123456789012%3Arole%2Freader",
                      "RoleSessionName=node-7", "WebIdentityToken=token-one"] { #expect(form.contains(field), "\(form)") }
        // Six minutes before expiry the token file has rotated: the refresh sends the new token.
        token.withLock { $0 = "token-two" }
        clock.withLock { $0 = ISO8601.date(from: "2030-01-01T00:06:00Z")! }
        #expect(try await provider.credentials()?.accessKeyId == "ASIASTS2")
        #expect(String(decoding: sts.requests[1].body ?? Data(), as: UTF8.self).contains("WebIdentityToken=token-two"))
        #expect(sts.requests.count == 2)
        #expect(await provider.sourceName.hasPrefix("web identity (arn:aws:iam::123456789012:role/reader"))
    }

    @Test("STS refusing the token is an error naming the role, the file and STS's code; kept credentials are used until they expire")
    func webIdentityRefused() async throws {
        let refuse = Locked(false)
        let sts = MockTransport { _ in
            refuse.current
                ? MockResponse(status: 400, chunks: [Data("<ErrorResponse><Error><Type>Sender</Type><Code>InvalidIdentityToken</Code><Message>Incorrect token audience</Message></Error></ErrorResponse>".utf8)])
                : Self.stsAnswer("ASIAOK", expires: "2030-01-01T00:10:00Z")
        }
        let env = Self.environment(["AWS_ROLE_ARN": "arn:aws:iam::1:role/r", "AWS_WEB_IDENTITY_TOKEN_FILE": "/t", "AWS_REGION": "eu-west-1"], files: ["/t": "jwt"])
        let clock = Locked(ISO8601.date(from: "2030-01-01T00:00:00Z")!)
        let provider = AWSCredentialProvider(fetchers: [AWSWebIdentity.fromEnvironment(env, transport: sts)], now: { clock.current })
        #expect(try await provider.credentials()?.accessKeyId == "ASIAOK")
        #expect(sts.requests.first?.url.absoluteString == "https://sts.eu-west-1.amazonaws.com")
        refuse.withLock { $0 = true }
        clock.withLock { $0 = ISO8601.date(from: "2030-01-01T00:07:00Z")! }
        #expect(try await provider.credentials()?.accessKeyId == "ASIAOK")           // the refresh failed; 3 minutes are left
        clock.withLock { $0 = ISO8601.date(from: "2030-01-01T00:11:00Z")! }
        let error = await #expect(throws: S3Error.self) { try await provider.credentials() }
        #expect(error?.description.contains("InvalidIdentityToken") == true && error?.description.contains("arn:aws:iam::1:role/r") == true)
        #expect(error?.description.contains("jwt") == false)
    }

    @Test("container credentials: the relative URI on 169.254.170.2, the token file sent as Authorization; a full URI of plain http to another host is refused")
    func container() async throws {
        let agent = MockTransport { _ in
            .json(200, #"{"AccessKeyId": "ASIACONTAINER", "SecretAccessKey": "c-secret", "Token": "c-token", "Expiration": "2099-01-01T00:00:00Z"}"#)
        }
        let env = Self.environment(["AWS_CONTAINER_CREDENTIALS_RELATIVE_URI": "/v2/credentials/abc", "AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE": "/tok"], files: ["/tok": "agent-token\n"])
        let found = try #require(try await AWSEndpointCredentials.container(env, transport: agent).fetch())
        #expect(found.accessKeyId == "ASIACONTAINER" && found.sessionToken == "c-token")
        #expect(agent.requests.first?.url.absoluteString == "http://169.254.170.2/v2/credentials/abc" && agent.requests.first?.headers["Authorization"] == "agent-token")
        let eks = try AWSEndpointCredentials.fullURI("http://169.254.170.23/v1/credentials")
        #expect(eks.host == "169.254.170.23")
        #expect(throws: S3Error.self) { try AWSEndpointCredentials.fullURI("http://evil.example/creds") }
        #expect(try AWSEndpointCredentials.fullURI("https://creds.example/x").scheme == "https")
    }

    @Test("IMDSv2: a session token first, then the role's credentials with it; disabled, or no answer, means none")
    func instanceMetadata() async throws {
        let imds = MockTransport { request in
            switch (request.method, request.url.absoluteString.replacingOccurrences(of: "http://127.0.0.1:1", with: "")) {
            case ("PUT", "/latest/api/token"):
                #expect(request.headers["X-aws-ec2-metadata-token-ttl-seconds"] == "21600")
                return MockResponse(status: 200, chunks: [Data("imds-token".utf8)])
            case ("GET", "/latest/meta-data/iam/security-credentials/"):
                #expect(request.headers["X-aws-ec2-metadata-token"] == "imds-token")
                return MockResponse(status: 200, chunks: [Data("models-node\n".utf8)])
            case ("GET", "/latest/meta-data/iam/security-credentials/models-node"):
                return .json(200, #"{"Code": "Success", "AccessKeyId": "ASIAIMDS", "SecretAccessKey": "i-secret", "Token": "i-token", "Expiration": "2099-01-01T00:00:00Z"}"#)
            default:
                return MockResponse(status: 404)
            }
        }
        let env = Self.environment(["AWS_EC2_METADATA_SERVICE_ENDPOINT": "http://127.0.0.1:1/"])
        let found = try #require(try await AWSEndpointCredentials.instanceMetadata(env, transport: imds).fetch())
        #expect(found.accessKeyId == "ASIAIMDS" && found.origin == "instance metadata (IMDSv2, role models-node)")
        #expect(imds.requests.map(\.method) == ["PUT", "GET", "GET"])
        #expect(try await AWSEndpointCredentials.instanceMetadata(Self.environment(["AWS_EC2_METADATA_DISABLED": "true"]), transport: Self.noNetwork).fetch() == nil)
        let silent = MockTransport { _ in
            try await Task.sleep(for: .seconds(30))
            return MockResponse(status: 200)
        }
        #expect(try await AWSEndpointCredentials.instanceMetadata(Self.environment(["AWS_METADATA_SERVICE_TIMEOUT": "0.2"]), transport: silent).fetch() == nil)
        #expect(silent.requests.count == 1) // the token request was abandoned at the timeout: no role was asked for
    }

    @Test("concurrent requests at expiry share one fetch")
    func sharedRefresh() async throws {
        let calls = Locked(0)
        let slow = AWSCredentialFetcher(name: "slow") {
            calls.withLock { $0 += 1 }
            try await Task.sleep(for: .milliseconds(50))
            return AWSCredentials(accessKeyId: "AKIASLOW", secretAccessKey: "s", origin: "slow")
        }
        let provider = AWSCredentialProvider(fetchers: [slow])
        try await withThrowingTaskGroup(of: String?.self) { group in
            for _ in 0..<8 { group.addTask { try await provider.credentials()?.accessKeyId } }
            for try await id in group { #expect(id == "AKIASLOW") }
        }
        #expect(calls.current == 1)
    }
}
