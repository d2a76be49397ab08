import Foundation
import ManashikiCore
import Manashiki

/// One place AWS credentials may come from: the environment, a profile, web identity, the
/// container's or the instance's endpoint. `fetch` returns nil when the place has none (the
/// chain moves on) and throws when it is configured but fails (a profile that is named but
/// missing, an STS refusal): a chain stops at a broken link rather than silently using other
/// credentials.
struct AWSCredentialFetcher: Sendable {
    /// What it is, for `status` and messages: `environment`, `profile ci (~/.aws/credentials)`…
    var name: String
    /// Fetches fresh credentials.
    var fetch: @Sendable () async throws -> AWSCredentials?

    /// `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY` and `AWS_SESSION_TOKEN` (nil when the key id
    /// is not set; an error when only one of the pair is).
    static func environment(_ environment: SyncEnvironment) -> AWSCredentialFetcher {
        named(environment, accessKeyId: "AWS_ACCESS_KEY_ID", secretAccessKey: "AWS_SECRET_ACCESS_KEY", sessionToken: "AWS_SESSION_TOKEN",
              origin: "environment", required: false)
    }

    /// Variables of these names (a source's `"credentials": {"env": …}`): both must be set.
    static func named(_ environment: SyncEnvironment, accessKeyId: String, secretAccessKey: String, sessionToken: String?,
                      origin: String? = nil, required: Bool = true) -> AWSCredentialFetcher {
        let label = origin ?? "environment variables \(accessKeyId)/\(secretAccessKey)"
        return AWSCredentialFetcher(name: label) {
            let variables = environment.variables
            func value(_ name: String) -> String? { variables[name].map(SecretResolver.chompingOneNewline).flatMap { $0.isEmpty ? nil : $0 } }
            let id = value(accessKeyId), secret = value(secretAccessKey)
            if id == nil && secret == nil && !required { return nil }
            guard let id else { throw S3Error.credentials("\(accessKeyId) is not set but \(secretAccessKey) is", hint: "export both \(accessKeyId) and \(secretAccessKey)") }
            guard let secret else { throw S3Error.credentials("\(secretAccessKey) is not set but \(accessKeyId) is", hint: "export both \(accessKeyId) and \(secretAccessKey)") }
            return AWSCredentials(accessKeyId: id, secretAccessKey: secret, sessionToken: sessionToken.flatMap(value), origin: label)
        }
    }

    /// A profile of the shared files: its keys, or its `credential_process`, or its web identity
    /// (`role_arn` + `web_identity_token_file`). With `required`, a missing profile or one
    /// without credentials is an error; otherwise nil.
    static func profile(_ name: String, required: Bool, environment: SyncEnvironment, transport: any HTTPTransport) -> AWSCredentialFetcher {
        AWSCredentialFetcher(name: "profile \(name)") {
            guard let profile = AWSProfile.load(name, environment: environment) else {
                guard required else { return nil }
                let files = AWSProfile.files(environment.variables)
                throw S3Error.credentials("profile \(name) is in neither \(files.credentials) nor \(files.config)",
                                          hint: "create it with `aws configure --profile \(name)`, or name another profile")
            }
            if let id = profile.value("aws_access_key_id") {
                guard let secret = profile.value("aws_secret_access_key") else {
                    throw S3Error.credentials("\(profile.label) has aws_access_key_id but no aws_secret_access_key", hint: "add the secret to the profile")
                }
                return AWSCredentials(accessKeyId: id, secretAccessKey: secret, sessionToken: profile.value("aws_session_token"), origin: profile.label)
            }
            if let command = profile.value("credential_process") {
                return try await AWSCredentialProcess.run(command, profile: profile, environment: environment)
            }
            if let role = profile.value("role_arn"), let tokenFile = profile.value("web_identity_token_file") {
                return try await AWSWebIdentity(roleArn: role, tokenFile: tokenFile, sessionName: profile.value("role_session_name"),
                                                origin: "web identity of \(profile.label)", environment: environment, transport: transport,
                                                region: profile.value("region")).fetch()
            }
            if profile.value("role_arn") != nil || profile.value("sso_start_url") != nil || profile.value("sso_session") != nil {
                throw S3Error.credentials("\(profile.label) assumes a role from another profile or uses AWS SSO, which this tool does not do itself",
                                          hint: "export temporary credentials first (`eval \"$(aws configure export-credentials --profile \(name) --format env)\"`), or add a credential_process to the profile")
            }
            guard required else { return nil }
            throw S3Error.credentials("\(profile.label) has no credentials (no aws_access_key_id, credential_process or web_identity_token_file)",
                                      hint: "add them with `aws configure --profile \(name)`")
        }
    }
}

/// A profile's `credential_process`: a command printing `{"Version": 1, "AccessKeyId", "SecretAccessKey",
/// "SessionToken", "Expiration"}` (aws-vault, the SSO helpers).
enum AWSCredentialProcess {
    struct Output: Decodable {
        var Version: Int?
        var AccessKeyId: String?
        var SecretAccessKey: String?
        var SessionToken: String?
        var Expiration: String?
    }

    static func run(_ command: String, profile: AWSProfile, environment: SyncEnvironment) async throws -> AWSCredentials {
        let origin = "credential_process of \(profile.label)"
        let text: String
        do { text = try await environment.runCommand(["/bin/sh", "-c", command]) } catch {
            let why = (error as? CommandFailure)?.described(as: "credential_process") ?? SyncFailure(error).message
            throw S3Error.credentials("the \(origin) failed: \(why)", hint: "run it by hand to see why")
        }
        guard let output = try? StrictJSONDecoder().decode(Output.self, from: Data(text.utf8)), output.Version == 1,
              let id = output.AccessKeyId, let secret = output.SecretAccessKey else {
            throw S3Error.credentials("the \(origin) did not print {\"Version\": 1, \"AccessKeyId\": …, \"SecretAccessKey\": …} (its output is not shown)",
                                      hint: "fix the command (docs.aws.amazon.com, \"Sourcing credentials with an external process\")")
        }
        return AWSCredentials(accessKeyId: id, secretAccessKey: secret, sessionToken: output.SessionToken,
                              expiration: output.Expiration.flatMap(ISO8601.date(from:)), origin: origin)
    }
}
