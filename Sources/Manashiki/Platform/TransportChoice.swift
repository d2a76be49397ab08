import Foundation

/// Which `HTTPTransport` `DefaultTransport` uses on this platform (see its table).
enum TransportChoice {
    static func make(maximumConnectionsPerHost: Int, highWaterBytes: Int, policy: NetworkPolicy, trust: TLSTrust = .system)
        -> (kind: DefaultTransport.Kind, transport: any HTTPTransport) {
        #if os(Linux)
        if let curl = try? CurlTransport(maxQueuedBytes: highWaterBytes, trust: trust) { return (.curl, curl) }
        #endif
        return (.urlSession, URLSessionTransport(maximumConnectionsPerHost: maximumConnectionsPerHost,
                                                 highWaterBytes: highWaterBytes, policy: policy, trust: trust))
    }
}
