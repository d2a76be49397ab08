import Foundation

extension TUFUpdater {
    /// Fetches `target` from `baseURL` into memory and verifies its length and every hash:
    /// for small targets (an app's configuration, the conformance suite's artifacts). Models go
    /// through the sync agent's own sources, which check the same length and SHA-256.
    ///
    /// With consistent snapshots the URL's last component is `<hash>.<name>` (SHA-256's hash
    /// when the target has one).
    /// - Throws: `TUFError` (`mismatch`, `tooLarge`, `unavailable`).
    public func download(_ target: TUFTargetFile, from baseURL: URL, transport: any HTTPTransport) async throws(TUFError) -> [UInt8] {
        var path = target.path
        if consistentSnapshot, let hash = target.sha256 ?? target.hashes.sorted(by: { $0.key < $1.key }).first?.value {
            let parts = path.split(separator: "/", omittingEmptySubsequences: false)
            path = (parts.dropLast() + ["\(hash).\(parts.last ?? "")"]).joined(separator: "/")
        }
        path = path.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? path
        guard let limit = Int(exactly: target.length) else { throw TUFError(role: target.path, reason: .tooLarge(limit: Int.max)) }
        let source = TUFHTTPSource(baseURL: baseURL, transport: transport)
        let fetched: Data?
        do { fetched = try await source.fetch(path, maxLength: limit) } catch {
            throw TUFError(role: target.path, reason: error.reason)
        }
        guard let data = fetched else { throw TUFError(role: target.path, reason: .unavailable("the target server has no \(path)")) }
        let bytes = Array(data)
        try target.verify(bytes)
        return bytes
    }
}
