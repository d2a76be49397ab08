import Foundation
import ManashikiCore
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An `HTTPTransport` on Foundation's `URLSession`: what `DefaultTransport` uses on Apple
/// platforms, and what the SDK guide's initializer names (`transport: any HTTPTransport =
/// URLSessionTransport()`), so code written from the guide compiles and works everywhere.
///
/// * Streams bodies with bounded memory on Apple platforms: when the consumer falls behind,
///   the task is suspended once it buffers its share of `bufferBudget` (shared by every task
///   of this transport; at most `highWaterBytes` for one) and resumed when the buffer drains.
/// * On Linux it is FoundationNetworking's `URLSession`, whose `suspend()` restarts a transfer
///   from byte 0 instead of pausing it, so it is never suspended there: a download is buffered
///   in memory as fast as it arrives. Prefer `DefaultTransport` (libcurl on Linux, this type on
///   Apple platforms), which the SDK uses when no transport is given.
/// * Concurrent `stream` calls are concurrent data tasks on the one session (a parallel
///   transfer's parts); over HTTP/2 the system multiplexes them on one connection, over
///   HTTP/1.1 each gets its own, up to `maximumConnectionsPerHost`.
/// * Follows no redirects (the client decides), stores no cookies, caches nothing, and asks
///   for identity encoding unless the request says otherwise.
/// * `NetworkPolicy` decides cellular, Low Data Mode and waiting for connectivity; a request
///   that waits for a network calls its `HTTPRequest.onWaitingForConnectivity`
///   (`urlSession(_:taskIsWaitingForConnectivity:)`, iOS 11, macOS 10.13, tvOS 11, watchOS 4,
///   visionOS 1; FoundationNetworking on Linux never waits, so never calls it).
/// * `TLSTrust` adds CAs to the system's trust on Apple platforms (a server-trust challenge
///   evaluated with them as extra anchors; see `Platform/ServerTrustEvaluation.swift`).
///   FoundationNetworking on Linux offers no such hook: there the bundle is not applied
///   (use `CurlTransport`, which `DefaultTransport` picks on Linux).
public struct URLSessionTransport: HTTPTransport {
    /// Buffered body bytes at which a task is suspended when it runs alone.
    public var highWaterBytes: Int { box.highWater }

    /// Buffered body bytes all tasks of this transport share: with several running, each is
    /// suspended at its share (`bufferBudget / tasks`, at most `highWaterBytes`).
    public var bufferBudget: Int { box.bufferBudget }
    /// `bufferBudget`.
    public var bodyBufferBudget: Int? { box.bufferBudget }

    let box: SessionBox

    /// The network policy in effect.
    public var policy: NetworkPolicy { box.policy }

    /// The CAs trusted besides the system's.
    public var trust: TLSTrust { box.delegate.trust }

    /// Creates a transport with its own ephemeral `URLSession`.
    /// - Parameters:
    ///   - maximumConnectionsPerHost: parallel connections to one host (16, so a parallel
    ///     transfer's parts, each a data task of its own, each get a connection up to
    ///     `DownloadOptions.maxConnections`).
    ///   - highWaterBytes: buffered bytes at which a stream running alone is paused (default 4 MiB).
    ///   - bufferBudget: buffered bytes shared by all streams at once (default 16 MiB): each is
    ///     paused at its share.
    ///   - policy: cellular, Low Data Mode and connectivity policy (Apple platforms).
    ///   - trust: CAs trusted in addition to the system's (Apple platforms; see `TLSTrust`).
    public init(maximumConnectionsPerHost: Int = 16, highWaterBytes: Int = 4 << 20, bufferBudget: Int = 16 << 20,
                policy: NetworkPolicy = .default, trust: TLSTrust = .system) {
        box = SessionBox(maximumConnectionsPerHost: maximumConnectionsPerHost, highWater: highWaterBytes,
                         bufferBudget: bufferBudget, policy: policy, trust: trust)
    }

    /// Streams the answer to `request` into `consumer` (see `HTTPTransport`).
    public func stream(_ request: HTTPRequest, to consumer: any HTTPBodyConsumer) async throws {
        var urlRequest = URLRequest(url: request.url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: request.idleTimeout)
        urlRequest.httpMethod = request.method
        for field in request.headers { urlRequest.addValue(field.value, forHTTPHeaderField: field.name) }
        if request.headers["Accept-Encoding"] == nil { urlRequest.setValue("identity", forHTTPHeaderField: "Accept-Encoding") }
        urlRequest.httpBody = request.body
        urlRequest.httpShouldHandleCookies = false

        let pump = StreamPump(highWater: { [box] in box.share }, onWaiting: request.onWaitingForConnectivity)
        let task = box.session.dataTask(with: urlRequest)
        box.delegate.register(pump, for: task)
        pump.task = task
        defer { box.delegate.unregister(task) }
        try await withTaskCancellationHandler {
            task.resume()
            do {
                try await pump.run(into: consumer, host: request.url.host ?? "?")
            } catch {
                // The consumer stopped (too many bytes, a wrong range, a full disk…): stop the
                // transfer too, or it would keep reading, or stay suspended holding a connection.
                task.cancel()
                throw error
            }
        } onCancel: {
            task.cancel()
        }
    }
}

/// Owns the `URLSession` and invalidates it when the last transport copy goes away.
final class SessionBox: @unchecked Sendable {
    let session: URLSession
    let delegate: SessionDelegate
    let highWater: Int
    let bufferBudget: Int
    let policy: NetworkPolicy

    init(maximumConnectionsPerHost: Int, highWater: Int, bufferBudget: Int, policy: NetworkPolicy, trust: TLSTrust) {
        self.policy = policy
        let configuration = URLSessionConfiguration.ephemeral
        policy.apply(to: configuration)
        configuration.httpMaximumConnectionsPerHost = maximumConnectionsPerHost
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.timeoutIntervalForResource = 7 * 24 * 3600
        delegate = SessionDelegate(trust: trust)
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        queue.name = "manashiki.urlsession"
        session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: queue)
        self.highWater = max(highWater, 64 << 10)
        self.bufferBudget = max(bufferBudget, 64 << 10)
    }

    deinit { session.invalidateAndCancel() }

    /// The bytes one task may buffer before it is suspended: its share of the budget among the
    /// tasks running now, at most `highWater`, at least 64 KiB.
    var share: Int { min(highWater, max(64 << 10, bufferBudget / max(1, delegate.taskCount))) }
}

/// Routes URLSession delegate callbacks to the pump of each task.
final class SessionDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private let pumps = Locked<[Int: StreamPump]>([:])
    let trust: TLSTrust
    private let anchors: ServerTrustEvaluation

    init(trust: TLSTrust) {
        self.trust = trust
        anchors = ServerTrustEvaluation(trust: trust)
    }

    func register(_ pump: StreamPump, for task: URLSessionTask) { pumps.withLock { $0[task.taskIdentifier] = pump } }
    func unregister(_ task: URLSessionTask) { pumps.withLock { _ = $0.removeValue(forKey: task.taskIdentifier) } }
    private func pump(_ task: URLSessionTask) -> StreamPump? { pumps.withLock { $0[task.taskIdentifier] } }
    /// The tasks streaming now.
    var taskCount: Int { pumps.withLock { $0.count } }

    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void) {
        completionHandler(nil) // never follow: the client applies its own policy
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void) {
        pump(dataTask)?.didReceive(response: response)
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        pump(dataTask)?.didReceive(data: data)
    }

    /// Server trust: the system's evaluation, with `trust`'s CAs as extra anchors when it has any.
    func urlSession(_ session: URLSession, didReceive challenge: URLAuthenticationChallenge,
                    completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void) {
        let (disposition, credential) = anchors.evaluate(challenge)
        completionHandler(disposition, credential)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        pump(task)?.didComplete(error: error)
    }

    /// No network the policy allows: the request waits (up to the resource timeout, or the
    /// download's deadline); its observer is told, at most once per task.
    func urlSession(_ session: URLSession, taskIsWaitingForConnectivity task: URLSessionTask) {
        pump(task)?.onWaiting?()
    }
}

/// Hands one task's events to the consumer with backpressure.
final class StreamPump: @unchecked Sendable {
    private struct State {
        var head: HTTPResponseHead?
        var headDelivered = false
        var chunks: [Data] = []
        var buffered = 0
        var suspended = false
        var completion: Result<Void, any Error>?
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = Locked(State())
    /// The buffered bytes at which the task is suspended now (its share of the budget).
    private let highWater: @Sendable () -> Int
    /// Set before the task starts; read only by this pump.
    nonisolated(unsafe) var task: URLSessionTask?
    /// The request's `onWaitingForConnectivity`.
    let onWaiting: (@Sendable () -> Void)?

    init(highWater: @escaping @Sendable () -> Int, onWaiting: (@Sendable () -> Void)? = nil) {
        self.highWater = highWater
        self.onWaiting = onWaiting
    }

    /// FoundationNetworking restarts a suspended transfer from scratch, so never suspend there.
    private var canSuspend: Bool {
        #if canImport(FoundationNetworking)
        return false
        #else
        return true
        #endif
    }

    // MARK: Delegate side (URLSession's queue)

    func didReceive(response: URLResponse) {
        let http = response as? HTTPURLResponse
        var headers = HTTPHeaders()
        if let http {
            for (key, value) in http.allHeaderFields {
                headers.add(name: "\(key)", value: "\(value)")
            }
        }
        let head = HTTPResponseHead(status: http?.statusCode ?? 200, headers: headers)
        signal { $0.head = head }
    }

    func didReceive(data: Data) {
        let limit = canSuspend ? highWater() : .max
        signal { s in
            s.chunks.append(data)
            s.buffered += data.count
            if s.buffered >= limit && !s.suspended && s.completion == nil {
                // Under the lock, so a resume() from the consumer side cannot overtake it.
                s.suspended = true
                self.task?.suspend()
            }
        }
    }

    func didComplete(error: (any Error)?) {
        signal { $0.completion = error.map { .failure($0) } ?? .success(()) }
    }

    private func signal(_ update: (inout State) -> Void) {
        let waiter: CheckedContinuation<Void, Never>? = state.withLock { s in
            update(&s)
            defer { s.waiter = nil }
            return s.waiter
        }
        waiter?.resume()
    }

    // MARK: Consumer side

    func run(into consumer: any HTTPBodyConsumer, host: String) async throws {
        while true {
            try Task.checkCancellation()
            let event: (head: HTTPResponseHead?, chunks: [Data], completion: Result<Void, any Error>?, resume: Bool)? = state.withLock { s in
                if let head = s.head, !s.headDelivered {
                    s.headDelivered = true
                    return (head, [], nil, false)
                }
                if !s.chunks.isEmpty {
                    let chunks = s.chunks
                    s.chunks.removeAll(keepingCapacity: true)
                    s.buffered = 0
                    return (nil, chunks, nil, s.suspended)
                }
                if let completion = s.completion { return (nil, [], completion, false) }
                return nil
            }
            guard let event else {
                await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                    let ready = state.withLock { s -> Bool in
                        let ready = (s.head != nil && !s.headDelivered) || !s.chunks.isEmpty || s.completion != nil
                        if !ready { s.waiter = c }
                        return ready
                    }
                    if ready { c.resume() }
                }
                continue
            }
            if let head = event.head { try await consumer.receive(head: head); continue }
            if !event.chunks.isEmpty {
                for chunk in event.chunks { try await consumer.receive(chunk: chunk) }
                // Resume only once the consumer has caught up, so at most one buffer's worth is held.
                if event.resume {
                    state.withLock { s in
                        if s.suspended {
                            s.suspended = false
                            self.task?.resume()
                        }
                    }
                }
                continue
            }
            if let completion = event.completion {
                switch completion {
                case .success:
                    if !state.withLock({ $0.headDelivered }) {
                        throw APIError.transport("\(host) closed the connection without answering")
                    }
                    return
                case .failure(let error):
                    if Task.isCancelled { throw CancellationError() }
                    throw TransportErrorText.apiError(for: error, host: host)
                }
            }
        }
    }
}

/// Turns URLSession errors into `APIError.transport` text that names the host but never the
/// URL (signed URLs carry secrets in their query strings).
enum TransportErrorText {
    static func apiError(for error: any Error, host: String) -> APIError {
        if let urlError = error as? URLError {
            let what: String
            switch urlError.code {
            case .timedOut: what = "\(host) stopped sending data (timed out)"
            case .cannotConnectToHost: what = "could not connect to \(host) (connection refused)"
            case .cannotFindHost, .dnsLookupFailed: what = "could not resolve \(host)"
            case .networkConnectionLost: what = "the connection to \(host) was lost"
            case .notConnectedToInternet: what = "this device is offline"
            case .serverCertificateHasUnknownRoot: return .untrustedCertificate(host: host, reason: "it is issued by a CA this device does not trust")
            case .serverCertificateUntrusted: return .untrustedCertificate(host: host, reason: "the system's trust evaluation refused it")
            case .serverCertificateHasBadDate: return .certificateDateInvalid(host: host, reason: "it has expired")
            case .serverCertificateNotYetValid: return .certificateDateInvalid(host: host, reason: "it is not yet valid")
            case .secureConnectionFailed, .clientCertificateRejected:
                what = "the TLS connection to \(host) failed (handshake or protocol problem)"
            case .cancelled: what = "the request to \(host) was cancelled"
            case .badServerResponse: what = "\(host) sent a malformed HTTP answer"
            default: what = "the request to \(host) failed (URLError \(urlError.code.rawValue))"
            }
            return .transport(what)
        }
        return .transport("the request to \(host) failed (\(type(of: error)))")
    }
}
