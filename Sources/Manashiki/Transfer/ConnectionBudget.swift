import ManashikiCore

/// A number of connections shared by the downloads that hold it, so that concurrent
/// downloads together never open more than `limit` (a sync run's
/// `policies.transfer.maxRunConnections`). Each download's first connection is always allowed
/// (it counts, but is never refused, so a download never waits for another); the extra
/// connections of parallel transfers are taken only while the budget has room.
///
/// ```swift
/// var options = DownloadOptions()
/// options.connectionBudget = ConnectionBudget(limit: 24)   // for every download sharing options
/// ```
public final class ConnectionBudget: Sendable, Hashable {
    /// The most connections open at once over all the downloads sharing the budget.
    public let limit: Int
    private let open = Locked((now: 0, peak: 0))

    /// A budget of `limit` connections (at least 1).
    public init(limit: Int) { self.limit = max(1, limit) }

    /// Connections open now.
    public var inUse: Int { open.withLock { $0.now } }

    /// The most connections open at once so far.
    public var peak: Int { open.withLock { $0.peak } }

    /// Takes a download's first connection (always granted).
    func takeFirst() {
        open.withLock { o in
            o.now += 1
            o.peak = max(o.peak, o.now)
        }
    }

    /// Takes an extra connection if there is room; returns whether it did.
    func tryTake() -> Bool {
        open.withLock { o in
            guard o.now < limit else { return false }
            o.now += 1
            o.peak = max(o.peak, o.now)
            return true
        }
    }

    /// Gives a connection back.
    func give() { open.withLock { $0.now = max(0, $0.now - 1) } }

    /// Budgets are equal only to themselves.
    public static func == (a: ConnectionBudget, b: ConnectionBudget) -> Bool { a === b }

    /// Hashes the identity.
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
