import Foundation
import Manashiki

/// The credentials one bucket's requests are signed with: found once in the configured places
/// (the AWS SDKs' chain by default), kept, and fetched again from the same place before they
/// expire, so a download that outlives a session token keeps going. Concurrent requests share
/// one fetch.
///
/// | `S3CredentialSource` | places, in order |
/// |---|---|
/// | `.chain` | environment (`AWS_ACCESS_KEY_ID`…), the shared files' profile (`AWS_PROFILE`, else `default`), web identity (`AWS_ROLE_ARN` + `AWS_WEB_IDENTITY_TOKEN_FILE`), container credentials, instance metadata (IMDSv2); none: anonymous |
/// | `.profile(name)` | that profile (missing: an error) |
/// | `.environment(…)` | those variables (unset: an error) |
/// | `.anonymous` | none: requests are not signed |
actor AWSCredentialProvider {
    /// Credentials are fetched again when they have less than this left.
    static let refreshMargin: TimeInterval = 5 * 60

    private let fetchers: [AWSCredentialFetcher]
    private let anonymousByChoice: Bool
    private let now: @Sendable () -> Date
    private var cached: AWSCredentials?
    private var resolved: AWSCredentialFetcher?
    private var searched = false
    private var inFlight: Task<AWSCredentials?, any Error>?

    /// A provider over `fetchers` (empty: anonymous by choice).
    init(fetchers: [AWSCredentialFetcher], now: @escaping @Sendable () -> Date = { Date() }) {
        self.fetchers = fetchers
        self.anonymousByChoice = fetchers.isEmpty
        self.now = now
    }

    /// The provider of `source`.
    static func make(_ source: S3CredentialSource, environment: SyncEnvironment, transport: any HTTPTransport) -> AWSCredentialProvider {
        switch source {
        case .anonymous:
            return AWSCredentialProvider(fetchers: [])
        case .profile(let name):
            return AWSCredentialProvider(fetchers: [.profile(name, required: true, environment: environment, transport: transport)])
        case .environment(let id, let secret, let token):
            return AWSCredentialProvider(fetchers: [.named(environment, accessKeyId: id, secretAccessKey: secret, sessionToken: token)])
        case .chain:
            let (profile, named) = AWSProfile.selectedName(environment.variables)
            return AWSCredentialProvider(fetchers: [
                .environment(environment),
                .profile(profile, required: named, environment: environment, transport: transport),
                AWSWebIdentity.fromEnvironment(environment, transport: transport),
                AWSEndpointCredentials.container(environment, transport: transport),
                AWSEndpointCredentials.instanceMetadata(environment, transport: transport),
            ])
        }
    }

    /// The credentials to sign with now, or nil for anonymous requests.
    /// - Parameter refresh: fetch again even when the kept ones have not expired (S3 said
    ///   `ExpiredToken`).
    /// - Throws: `S3Error` (credentials) when a configured place fails and nothing usable is kept.
    func credentials(refresh: Bool = false) async throws -> AWSCredentials? {
        if !refresh, searched, cached.map({ !$0.expires(within: Self.refreshMargin, of: now()) }) ?? true { return cached }
        if let inFlight { return try await inFlight.value }
        let task = Task { try await self.fetch() }
        inFlight = task
        defer { inFlight = nil }
        return try await task.value
    }

    /// What the requests are signed with, for `status` and `--json` (never a secret):
    /// `environment`, `profile ci (~/.aws/credentials)`, `web identity (arn:…)`, `anonymous`, or
    /// `none found (anonymous requests)`; `not yet looked up` before the first request.
    var sourceName: String {
        if anonymousByChoice { return "anonymous" }
        if let cached { return cached.origin }
        return searched ? "none found (anonymous requests)" : "not yet looked up"
    }

    /// The places searched, for a message about anonymous requests being refused.
    nonisolated var searchedPlaces: String { fetchers.map(\.name).joined(separator: ", ") }

    private func fetch() async throws -> AWSCredentials? {
        if let resolved {
            do {
                if let fresh = try await Self.run(resolved) {
                    cached = fresh
                    return fresh
                }
            } catch {
                // Keep using what still works: a refresh that fails early is not yet a failure.
                if let cached, !cached.expires(within: 0, of: now()) { return cached }
                throw error
            }
        }
        for fetcher in fetchers {
            if let found = try await Self.run(fetcher) {
                cached = found
                resolved = fetcher
                searched = true
                return found
            }
        }
        searched = true
        cached = nil
        resolved = nil
        return nil
    }

    private static func run(_ fetcher: AWSCredentialFetcher) async throws -> AWSCredentials? {
        do { return try await fetcher.fetch() } catch let error as S3Error { throw error } catch is CancellationError { throw CancellationError() } catch {
            throw S3Error.credentials("\(fetcher.name) could not be read: \(SyncFailure(error).message)", hint: "check its configuration, or name other credentials for the source")
        }
    }
}
