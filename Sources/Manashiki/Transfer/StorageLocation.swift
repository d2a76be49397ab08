import Foundation

/// Where a transfer's parts fetch from: the signed URL (or a mirror's fixed URL), re-resolved
/// once for all parts when it expires. Parts that find the URL expired at the same time get
/// the same fresh one: a refresh asked for a URL that was already replaced returns the
/// replacement without another request to the registry.
actor StorageLocation {
    /// Resolves a fresh signed URL (`GET /api/download`); nil for a mirror (nothing to refresh).
    typealias Refresh = @Sendable () async throws -> DownloadTicket

    private(set) var ticket: DownloadTicket
    private var url: URL
    private var generation = 0
    private var refreshes = 0
    private var inFlight: Task<(DownloadTicket, URL), any Error>?
    private let refresh: Refresh?
    private let maxRefreshes: Int
    /// Whether plain http to other hosts is allowed (a mirror the operator marked so).
    let allowsPlainHTTP: Bool

    init(ticket: DownloadTicket, allowsPlainHTTP: Bool, maxRefreshes: Int, refresh: Refresh?) throws {
        self.ticket = ticket
        url = try ManashikiClient.checkedStorageURL(ticket.downloadUrl, allowingPlainHTTP: allowsPlainHTTP)
        self.allowsPlainHTTP = allowsPlainHTTP
        self.maxRefreshes = maxRefreshes
        self.refresh = refresh
    }

    /// The URL to use now and its generation (pass it to `refreshed(after:status:)`).
    func current() -> (url: URL, generation: Int) { (url, generation) }

    /// A fresh URL after generation `seen` was refused with `status` (403/410).
    /// - Throws: `APIError.unexpectedStatus` for a mirror, or when the registry's fresh URLs
    ///   keep being refused (`DownloadOptions.maxURLRefreshes`); the registry's errors.
    func refreshed(after seen: Int, status: Int) async throws -> (url: URL, generation: Int) {
        if generation > seen { return (url, generation) }
        if let inFlight {
            // Another part is refreshing this very URL: share its answer.
            return (try await inFlight.value.1, seen + 1)
        }
        guard let refresh else {
            throw APIError.unexpectedStatus(status: status, message: "from the mirror (it refused the blob)")
        }
        refreshes += 1
        guard refreshes <= maxRefreshes else {
            throw APIError.unexpectedStatus(status: status, message: "the storage host kept refusing fresh download URLs; check the device clock and try again")
        }
        let task = Task { () throws -> (DownloadTicket, URL) in
            let ticket = try await refresh()
            return (ticket, try ManashikiClient.checkedStorageURL(ticket.downloadUrl))
        }
        inFlight = task
        defer { inFlight = nil }
        let (fresh, freshURL) = try await withTaskCancellationHandler { try await task.value } onCancel: { task.cancel() }
        ticket = fresh
        url = freshURL
        generation += 1
        return (url, generation)
    }
}
