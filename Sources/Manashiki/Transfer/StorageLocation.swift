import Foundation

/// Where a transfer's parts fetch from now: the `ArtifactLocation`'s URL, re-resolved once for
/// all parts when it expires. Parts that find the URL expired at the same time get the same
/// fresh one: a refresh asked for a URL that was already replaced returns the replacement
/// without another call of the location's `refresh`.
actor StorageLocation {
    private var url: URL
    private var generation = 0
    private var refreshes = 0
    private var inFlight: Task<URL, any Error>?
    private let refresh: ArtifactLocation.Refresher?
    private let maxRefreshes: Int
    /// Whether plain http to other hosts is allowed (a mirror the operator marked so).
    let allowsPlainHTTP: Bool
    /// The location's request signer, applied to every request.
    nonisolated let sign: ArtifactLocation.Signer?

    /// - Throws: `APIError.refusedURL` when the URL is not allowed (`URLPolicy`).
    init(_ location: ArtifactLocation, maxRefreshes: Int) throws {
        url = try ArtifactDownloader.checkedStorageURL(location.url, allowingPlainHTTP: location.allowsPlainHTTP)
        allowsPlainHTTP = location.allowsPlainHTTP
        self.maxRefreshes = location.maxRefreshes ?? maxRefreshes
        refresh = location.refresh
        sign = location.sign
    }

    /// The URL to use now and its generation (pass it to `refreshed(after:status:)`).
    func current() -> (url: URL, generation: Int) { (url, generation) }

    /// A fresh URL after generation `seen` was refused with `status` (403/410).
    /// - Throws: `APIError.unexpectedStatus` for a location without `refresh`, or when fresh
    ///   URLs keep being refused (`maxRefreshes`); the refresh's errors.
    func refreshed(after seen: Int, status: Int) async throws -> (url: URL, generation: Int) {
        if generation > seen { return (url, generation) }
        if let inFlight {
            // Another part is refreshing this very URL: share its answer.
            return (try await inFlight.value, seen + 1)
        }
        guard let refresh, maxRefreshes > 0 else {
            throw APIError.unexpectedStatus(status: status, message: "from the storage host (it refused the URL)")
        }
        refreshes += 1
        guard refreshes <= maxRefreshes else {
            throw APIError.unexpectedStatus(status: status, message: "the storage host kept refusing fresh download URLs; check the device clock and try again")
        }
        let allowsPlainHTTP = self.allowsPlainHTTP
        let task = Task { () throws -> URL in
            try ArtifactDownloader.checkedStorageURL(try await refresh(status), allowingPlainHTTP: allowsPlainHTTP)
        }
        inFlight = task
        defer { inFlight = nil }
        url = try await withTaskCancellationHandler { try await task.value } onCancel: { task.cancel() }
        generation += 1
        return (url, generation)
    }
}
