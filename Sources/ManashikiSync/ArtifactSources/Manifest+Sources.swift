import Foundation

extension Manifest {
    /// How `source` is named in plans, results and summaries: `bundle <absolute path>` (resolved
    /// against the manifest) or `mirror <url>`.
    public func label(of source: ArtifactSource) -> String {
        if case .bundle(let path) = source.kind { return "bundle \(bundleDirectory(path).path)" }
        return source.description
    }
}
