import Foundation

/// The transport the SDK uses when none is given: the best one for this platform.
///
/// | platform | transport | why |
/// |---|---|---|
/// | Apple platforms | `URLSessionTransport` | system networking: cellular and Low Data Mode policy, proxies, VPN-on-demand |
/// | Linux | `CurlTransport` (libcurl, loaded at run time) | FoundationNetworking's `URLSession` cannot pause a transfer, so it would buffer a fast download in memory; libcurl waits for the disk instead |
/// | Linux without libcurl | `URLSessionTransport` | the only one left (no backpressure) |
///
/// The choice is made in `Platform/TransportChoice.swift`. `kind` says which one is in use.
///
/// ```swift
/// let client = try ManashikiClient(apiKey: key)                               // DefaultTransport()
/// let cellular = try ManashikiClient(apiKey: key, transport: DefaultTransport(policy: .wifiOnly))
/// let corporate = try ManashikiClient(apiKey: key, transport: DefaultTransport(trust: TLSTrust(caBundle: caURL)))
/// ```
public struct DefaultTransport: HTTPTransport {
    /// Which transport is in use.
    public enum Kind: String, Sendable {
        /// Foundation's `URLSession` (`URLSessionTransport`).
        case urlSession
        /// libcurl (`CurlTransport`, Linux).
        case curl
    }

    /// Which transport this platform uses.
    public let kind: Kind
    /// The network policy given (applied on Apple platforms; see `NetworkPolicy`).
    public let policy: NetworkPolicy
    /// The CAs servers are verified against (see `TLSTrust`).
    public let trust: TLSTrust
    private let base: any HTTPTransport

    /// Creates the platform's transport.
    /// - Parameters:
    ///   - maximumConnectionsPerHost: parallel connections to one host (URLSession; 16, so a
    ///     parallel transfer's parts each get a connection up to `DownloadOptions.maxConnections`).
    ///   - highWaterBytes: body bytes buffered for one request before it waits for its consumer.
    ///   - bufferBudget: body bytes buffered by all requests at once (16 MiB): memory stays
    ///     within it whatever the number of connections (each request waits at its share).
    ///   - policy: cellular, Low Data Mode and connectivity policy (Apple platforms).
    ///   - trust: CAs trusted in addition to the system's, e.g. a corporate CA (`TLSTrust`).
    public init(maximumConnectionsPerHost: Int = 16, highWaterBytes: Int = 4 << 20, bufferBudget: Int = 16 << 20,
                policy: NetworkPolicy = .default, trust: TLSTrust = .system) {
        let choice = TransportChoice.make(maximumConnectionsPerHost: maximumConnectionsPerHost, highWaterBytes: highWaterBytes,
                                          bufferBudget: bufferBudget, policy: policy, trust: trust)
        kind = choice.kind
        base = choice.transport
        self.policy = policy
        self.trust = trust
    }

    /// The platform transport's `bufferBudget`.
    public var bodyBufferBudget: Int? { base.bodyBufferBudget }

    /// Streams the answer to `request` into `consumer` (see `HTTPTransport`); asks for
    /// identity encoding unless the request says otherwise.
    public func stream(_ request: HTTPRequest, to consumer: any HTTPBodyConsumer) async throws {
        var r = request
        if r.headers["Accept-Encoding"] == nil { r.headers["Accept-Encoding"] = "identity" }
        try await base.stream(r, to: consumer)
    }
}
