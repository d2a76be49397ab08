#if os(Linux)
import Foundation
import CManashikiShims
import ManashikiCore

/// An `HTTPTransport` on libcurl's easy API (Linux), loaded at run time from the libcurl that
/// FoundationNetworking already uses.
///
/// Why it exists: FoundationNetworking's `URLSessionTask.suspend()` removes the transfer from
/// libcurl and `resume()` starts it over, so URLSession on Linux cannot apply backpressure and
/// buffers a fast download in memory without bound. Here each transfer runs on its own thread
/// and the body is handed to the consumer in 512 KiB chunks (each byte copied once out of
/// libcurl's buffer) through a queue of at most `maxQueuedBytes`. Every chunk comes from one
/// pool per transport, shared by all its requests and capped at `bufferBudget`: when the
/// consumer falls behind, or when the pool is exhausted (many connections at once), the
/// transfer thread simply waits in libcurl's write callback, and the kernel's TCP window slows
/// the sender. Memory stays flat whatever the artifact's size and the number of connections.
///
/// Linux only (this file is compiled there alone). `DefaultTransport` uses it on Linux for
/// every request.
public struct CurlTransport: HTTPTransport {
    /// Bytes queued for one request's consumer before the transfer waits (less when several
    /// requests share `bufferBudget`: each gets its share).
    public let maxQueuedBytes: Int
    /// The most bytes of received body all requests of this transport hold at once (chunks
    /// being filled, queued, or being consumed); a request waits for a chunk beyond it.
    public var bufferBudget: Int { pool.budget }
    /// `bufferBudget`.
    public var bodyBufferBudget: Int? { pool.budget }
    /// The default `bufferBudget`: 16 MiB (32 chunks of 512 KiB).
    public static let defaultBufferBudget = 16 << 20
    let pool: ChunkPool
    /// Seconds allowed to establish a connection.
    public var connectTimeout: Int = 30
    /// The proxy variables, read when the transport is made (see `ProxyEnvironment`).
    var proxies = ProxyEnvironment.process
    /// The CAs servers are verified against (see `TLSTrust`; the environment's are read at init).
    public let trust: TLSTrust
    private let caLocations: Result<CALocations, APIError>

    /// Whether libcurl could be loaded on this machine.
    public static var isAvailable: Bool { mk_curl_load(nil, 0) == 0 }

    /// Creates a transport.
    /// - Parameters:
    ///   - maxQueuedBytes: body bytes queued for one request's consumer before it waits (at least 1 MiB).
    ///   - bufferBudget: body bytes all requests hold at once (at least one 512 KiB chunk).
    ///   - trust: the CAs to trust besides the system's (`CURL_CA_BUNDLE`,
    ///     `SSL_CERT_FILE` and `SSL_CERT_DIR` apply when it names no bundle).
    /// - Throws: `APIError.transport` when libcurl cannot be loaded.
    public init(maxQueuedBytes: Int = 4 << 20, bufferBudget: Int = CurlTransport.defaultBufferBudget, trust: TLSTrust = .system) throws {
        var buffer = [CChar](repeating: 0, count: 256)
        guard mk_curl_load(&buffer, buffer.count) == 0 else {
            throw APIError.transport(cString(buffer))
        }
        self.maxQueuedBytes = max(maxQueuedBytes, 1 << 20)
        pool = ChunkPool(size: CurlTransfer.chunkSize, budget: bufferBudget)
        self.trust = trust
        caLocations = Result { () throws(APIError) in 
            try CALocations.resolve(trust, environment: ProcessInfo.processInfo.environment, systemCAFile: Self.systemCAFile)
        }
    }

    /// Streams the answer to `request` into `consumer` (see `HTTPTransport`).
    public func stream(_ request: HTTPRequest, to consumer: any HTTPBodyConsumer) async throws {
        let route = try proxyRoute(for: request)
        let transfer = CurlTransfer(request: request, maxQueuedBytes: maxQueuedBytes, connectTimeout: connectTimeout,
                                    route: route, caLocations: try caLocations.get(), pool: pool)
        // A proxy's own 407 or 401 becomes a proxy error (CurlTransport+Proxy.swift).
        let filtered = ProxyAnswerFilter(consumer, route: route, host: request.url.host ?? "?")
        transfer.start()
        try await withTaskCancellationHandler {
            do {
                try await transfer.deliver(to: filtered)
                try await filtered.finish()
            } catch {
                transfer.cancel()
                await transfer.waitUntilFinished()
                throw error
            }
        } onCancel: {
            transfer.cancel()
        }
    }
}
#endif
