import Foundation
import ManashikiCore

/// Every request the registry's origins received (admin requests excluded), in order, up to
/// a limit (older entries are dropped first).
final class RequestLog: @unchecked Sendable {
    private struct State {
        var entries: [LoggedRequest] = []
        var sequence = 0
    }

    private let state = Locked(State())
    private let limit: Int

    init(limit: Int) { self.limit = max(1, limit) }

    /// Records `request` as received by `origin`.
    func record(_ request: ServerRequest, origin: RegistryOrigin) {
        state.withLock { s in
            s.sequence += 1
            s.entries.append(LoggedRequest(origin: origin, method: request.method, path: request.path, query: request.query,
                                           target: request.target,
                                           headers: request.headers.map { LoggedRequest.Header(name: $0.name, value: $0.value) },
                                           fromLoopback: request.fromLoopback, sequence: s.sequence,
                                           receivedAt: DispatchTime.now().uptimeNanoseconds))
            if s.entries.count > limit { s.entries.removeFirst(s.entries.count - limit) }
        }
    }

    /// The entries, oldest first.
    var entries: [LoggedRequest] { state.withLock { $0.entries } }

    /// Forgets every entry.
    func clear() { state.withLock { $0.entries.removeAll() } }
}
