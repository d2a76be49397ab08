import Foundation

/// Which of the registry's two origins received a request.
public enum RegistryOrigin: String, Sendable, Hashable {
    /// The API origin (`apiBaseURL`).
    case api
    /// The storage origin standing in for the CDN (`storageBaseURL`).
    case storage
}

/// One request as the registry received it, for tests to assert what clients send where.
public struct LoggedRequest: Sendable, Hashable {
    /// One header field as sent.
    public struct Header: Sendable, Hashable {
        /// The name, as sent.
        public let name: String
        /// The value.
        public let value: String
    }

    /// The origin that received it.
    public let origin: RegistryOrigin
    /// `GET`, `POST`…
    public let method: String
    /// The path without the query string.
    public let path: String
    /// The query string without `?`, or nil.
    public let query: String?
    /// The request target as sent (path and query).
    public let target: String
    /// Every header field in order.
    public let headers: [Header]
    /// Whether the peer was on loopback.
    public let fromLoopback: Bool
    /// A sequence number, increasing in arrival order.
    public let sequence: Int
    /// When it arrived, in nanoseconds of the monotonic clock (`DispatchTime.uptimeNanoseconds`):
    /// for rates and the timing of retries (`manashiki-bench herd`).
    public let receivedAt: UInt64

    /// The first value of `name`, matched case-insensitively.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }
}
