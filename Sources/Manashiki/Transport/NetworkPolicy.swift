import Foundation

/// Which networks a transfer may use, and whether it waits for one. Apps choose, for example,
/// to fetch large models on Wi-Fi only, or to respect Low Data Mode.
///
/// Applied to the `URLSessionConfiguration` on Apple platforms (`Platform/NetworkPolicy+URLSession.swift`);
/// Linux has no notion of expensive or constrained networks, so only the timeouts apply there.
///
/// ```swift
/// let transport = DefaultTransport(policy: NetworkPolicy(allowsExpensive: false, allowsConstrained: false, waitsForConnectivity: true))
/// // or, from a manifest: "policies": {"network": {"cellular": false, "lowDataMode": false, "waitForConnectivity": true}}
/// ```
public struct NetworkPolicy: Sendable, Hashable {
    /// Whether cellular interfaces may be used (`allowsCellularAccess`). Default true.
    public var allowsCellular: Bool
    /// Whether interfaces the system considers expensive (most cellular networks, personal
    /// hotspots) may be used (`allowsExpensiveNetworkAccess`). Default true.
    public var allowsExpensive: Bool
    /// Whether the network may be used in Low Data Mode (`allowsConstrainedNetworkAccess`).
    /// Default true.
    public var allowsConstrained: Bool
    /// Whether a request waits for a suitable network instead of failing at once while none is
    /// available (`waitsForConnectivity`). Default false: a sync reports "offline" and the next
    /// run retries. The idle timeout still bounds a transfer that stalls once started.
    public var waitsForConnectivity: Bool

    /// Creates a policy; the defaults allow every network and do not wait.
    public init(allowsCellular: Bool = true, allowsExpensive: Bool = true, allowsConstrained: Bool = true,
                waitsForConnectivity: Bool = false) {
        self.allowsCellular = allowsCellular
        self.allowsExpensive = allowsExpensive
        self.allowsConstrained = allowsConstrained
        self.waitsForConnectivity = waitsForConnectivity
    }

    /// Every network, no waiting.
    public static let `default` = NetworkPolicy()
    /// No cellular, expensive or Low Data Mode networks; waits for Wi-Fi or Ethernet.
    public static let wifiOnly = NetworkPolicy(allowsCellular: false, allowsExpensive: false, allowsConstrained: false,
                                               waitsForConnectivity: true)
}
