import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension NetworkPolicy {
    /// Applies the policy to a session configuration. On Apple platforms:
    /// `allowsCellularAccess` (iOS 6, macOS 10.9, tvOS 9, watchOS 2, visionOS 1),
    /// `allowsExpensiveNetworkAccess` and `allowsConstrainedNetworkAccess` (iOS 13, macOS 10.15,
    /// tvOS 13, watchOS 6, visionOS 1 — developer.apple.com/documentation/foundation/urlsessionconfiguration),
    /// `waitsForConnectivity` (iOS 11, macOS 10.13, tvOS 11, watchOS 4, visionOS 1): all older
    /// than the deployment targets (iOS 16, macOS 13, tvOS 16, watchOS 9, visionOS 1), so no
    /// `#available` is needed. On Linux, FoundationNetworking ignores network kinds: nothing to set.
    func apply(to configuration: URLSessionConfiguration) {
        #if os(macOS) || os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
        configuration.allowsCellularAccess = allowsCellular
        configuration.allowsExpensiveNetworkAccess = allowsExpensive
        configuration.allowsConstrainedNetworkAccess = allowsConstrained
        configuration.waitsForConnectivity = waitsForConnectivity
        #endif
    }
}
