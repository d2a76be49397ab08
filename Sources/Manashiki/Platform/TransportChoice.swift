import Foundation

/// Which `HTTPTransport` `DefaultTransport` uses on this platform (see its table).
enum TransportChoice {
    static func make(maximumConnectionsPerHost: Int, highWaterBytes: Int, bufferBudget: Int, policy: NetworkPolicy,
                     trust: TLSTrust = .system) -> (kind: DefaultTransport.Kind, transport: any HTTPTransport) {
        #if os(Linux)
        if let curl = try? CurlTransport(maxQueuedBytes: highWaterBytes, bufferBudget: bufferBudget, trust: trust) { return (.curl, curl) }
        #endif
        return (.urlSession, URLSessionTransport(maximumConnectionsPerHost: maximumConnectionsPerHost, highWaterBytes: highWaterBytes,
                                                 bufferBudget: bufferBudget, policy: policy, trust: trust))
    }
}
