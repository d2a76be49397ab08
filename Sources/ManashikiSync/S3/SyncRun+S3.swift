import Foundation
import Manashiki

extension SyncRun {
    /// The bucket client of an `s3` source (nil for other kinds), over the registry client's
    /// transport (its TLS trust and proxies), else the manifest's.
    func s3Client(_ source: ArtifactSource, label: String) -> S3SourceClient? {
        guard case .s3(let settings) = source.kind,
              let transport = (registry as? ManashikiClient)?.transport ?? (try? manifest.defaultTransport()) else { return nil }
        return S3SourceClient(settings, label: label, transport: transport, environment: options.environment,
                              retry: retry, storeDirectory: layout.directory)
    }
}

extension ArtifactFetcher {
    /// Where each bucket source's credentials came from, by label (never a secret).
    func credentialSources() async -> [String: String] {
        var found: [String: String] = [:]
        for source in sources {
            if let bucket = source.s3 { found[source.label] = await bucket.credentialSource() }
        }
        return found
    }
}
