import Foundation
import Manashiki

extension SyncRun {
    /// The registry client of an OCI source (nil for other kinds), over the registry client's
    /// transport (its TLS trust and proxies), else the manifest's.
    func ociClient(_ source: ArtifactSource, label: String) -> OCISourceClient? {
        guard case .oci(let reference) = source.kind,
              let transport = (registry as? ManashikiClient)?.transport ?? (try? manifest.defaultTransport()) else { return nil }
        return OCISourceClient(source, reference: reference, label: label, transport: transport, environment: options.environment,
                               baseDirectory: manifest.baseDirectory, storeDirectory: layout.directory,
                               documentLimits: manifest.policies.documents)
    }
}
