#if os(Linux)
import Foundation
import CManashikiShims
import ManashikiCore

/// One transfer: the curl thread produces events, the async side consumes them.
final class CurlTransfer: @unchecked Sendable {
    enum Event {
        case head(HTTPResponseHead)
        case chunk(Data)
        case finished(code: Int32, message: String)
    }

    /// The size of a chunk handed to the consumer.
    static let chunkSize = 512 << 10
    /// The longest received bytes wait to be handed over, in nanoseconds.
    static let maxPendingAge: UInt64 = 100_000_000

    private let request: HTTPRequest
    private let maxQueuedBytes: Int
    private let connectTimeout: Int
    private let host: String
    private let route: ProxyRoute
    /// The proxy's answer to CONNECT, written by the curl thread before `finished`.
    private var proxyConnectStatus = 0
    private let caLocations: CALocations
    private var peerCertificate = PeerCertificate()

    // Shared state, guarded by `condition`: an `NSCondition`, not `Locked`, because the curl
    // thread waits on it while the consumer is behind (the bounded queue's backpressure).
    private let condition = NSCondition()
    private var events: [Event] = []
    private var queuedBytes = 0
    private var cancelled = false
    /// `cancelled` for the pool's wait, which must not take `condition` (the pool's lock is
    /// held while it is read).
    private let stopped = Locked(false)
    private var finished = false
    private var waiter: CheckedContinuation<Void, Never>?
    private var finishWaiters: [CheckedContinuation<Void, Never>] = []
    private var peakQueued = 0

    /// The most body bytes that were ever waiting for the consumer (for tests of the bound).
    var peakQueuedBytes: Int {
        condition.lock()
        defer { condition.unlock() }
        return peakQueued
    }

    // Owned by the curl thread: the buffer being filled, from the transport's pool (each
    // received byte is copied once, into a buffer that the consumer then reads in place).
    let pool: ChunkPool
    private var fill: UnsafeMutableRawPointer?
    private var fillCount = 0
    private var pendingSince: UInt64 = 0
    private var statusLine: Int?
    private var headerFields = HTTPHeaders()
    private var headSent = false

    init(request: HTTPRequest, maxQueuedBytes: Int, connectTimeout: Int, route: ProxyRoute = .direct,
         caLocations: CALocations = CALocations(),
         pool: ChunkPool = ChunkPool(size: CurlTransfer.chunkSize, budget: CurlTransport.defaultBufferBudget)) {
        self.caLocations = caLocations
        self.request = request
        self.route = route
        self.maxQueuedBytes = maxQueuedBytes
        self.connectTimeout = connectTimeout
        self.host = request.url.host ?? "?"
        self.pool = pool
    }

    func start() {
        pool.begin()
        let thread = Thread { [self] in run() }
        thread.name = "manashiki.curl"
        thread.start()
    }

    func cancel() {
        condition.lock()
        cancelled = true
        condition.broadcast()
        condition.unlock()
        stopped.withLock { $0 = true }
        pool.wake()
    }

    private var isCancelled: Bool {
        condition.lock()
        defer { condition.unlock() }
        return cancelled
    }

    // MARK: Curl thread

    private func run() {
        let urlString = request.url.absoluteString
        let method = request.method
        let lines = request.headers.map { "\($0.name): \($0.value)" }
        let body = request.body
        var errorBuffer = [CChar](repeating: 0, count: 512)
        let ((code, connectStatus), peer): ((Int32, Int), PeerCertificate) = caLocations.withCTLS { tls in route.withCurlProxy { proxy, connectStatus in withCStrings(lines) { headerPointers in
            urlString.withCString { url in
                method.withCString { methodPointer in
                    withOptionalBytes(body) { bodyPointer, bodyLength in
                        var r = mk_curl_request(
                            url: url, method: methodPointer, headers: headerPointers, header_count: lines.count,
                            body: bodyPointer, body_length: bodyLength, has_body: body == nil ? 0 : 1,
                            connect_timeout_seconds: connectTimeout, idle_timeout_seconds: Int(request.idleTimeout.rounded(.up)),
                            proxy: proxy, proxy_connect_status: connectStatus, tls: tls)
                        let context = Unmanaged.passUnretained(self).toOpaque()
                        return mk_curl_perform(&r, { ctx, line, length in
                            Unmanaged<CurlTransfer>.fromOpaque(ctx!).takeUnretainedValue().onHeader(line!, length)
                        }, { ctx, data, length in
                            Unmanaged<CurlTransfer>.fromOpaque(ctx!).takeUnretainedValue().onData(data!, length)
                        }, { ctx in
                            Unmanaged<CurlTransfer>.fromOpaque(ctx!).takeUnretainedValue().onTick()
                        }, context, &errorBuffer)
                    }
                }
            }
        } } }
        proxyConnectStatus = connectStatus
        peerCertificate = peer
        // Bytes received before a failure are still a valid prefix: deliver them, so a resume
        // can continue after them with Range.
        if code == 0 { flushHeadIfNeeded() }
        if headSent {
            handOver()
        } else if let buffer = fill {
            pool.give(buffer)
            fill = nil
        }
        pool.end()
        let message = cString(errorBuffer)
        condition.lock()
        events.append(.finished(code: code, message: message))
        finished = true
        let w = waiter
        waiter = nil
        let fw = finishWaiters
        finishWaiters = []
        condition.broadcast()
        condition.unlock()
        w?.resume()
        fw.forEach { $0.resume() }
    }

    private func onHeader(_ line: UnsafePointer<CChar>, _ length: Int) -> Int32 {
        let raw = UnsafeRawBufferPointer(start: line, count: length)
        // Strip CR/LF on bytes: Swift treats "\r\n" as one Character, so hasSuffix("\n") fails.
        var end = raw.count
        while end > 0 && (raw[end - 1] == 0x0A || raw[end - 1] == 0x0D) { end -= 1 }
        let text = String(decoding: UnsafeRawBufferPointer(rebasing: raw[0..<end]), as: UTF8.self)
        if text.hasPrefix("HTTP/") {
            // A new response (after 100 Continue, or a proxy's CONNECT answer) starts over: the
            // head is only handed on with the first body byte or at the end, so an interim
            // head is replaced, never delivered.
            let parts = text.split(separator: " ", maxSplits: 2)
            statusLine = parts.count >= 2 ? Int(parts[1]) : nil
            headerFields = HTTPHeaders()
        } else if let colon = text.firstIndex(of: ":") {
            let name = String(text[..<colon]).trimmingCharacters(in: .whitespaces)
            let value = String(text[text.index(after: colon)...]).trimmingCharacters(in: .whitespaces)
            headerFields.add(name: name, value: value)
        }
        return isCancelled ? 1 : 0
    }

    private func flushHeadIfNeeded() {
        guard !headSent, let status = statusLine, status >= 200 else { return }
        headSent = true
        enqueue(.head(HTTPResponseHead(status: status, headers: headerFields)), bytes: 0)
    }

    private func onData(_ data: UnsafePointer<CChar>, _ length: Int) -> Int {
        flushHeadIfNeeded()
        let now = DispatchTime.now().uptimeNanoseconds
        var source = UnsafeRawPointer(data)
        var remaining = length
        // Fill 512 KiB buffers and hand each over when full (a fast link fills one in well under
        // a millisecond), so the consumer wakes once per chunk, not once per callback. With every
        // buffer of the transport's pool out, wait here for one (cancellation stops the wait).
        while remaining > 0 {
            if fill == nil {
                guard let buffer = pool.take(unless: { stopped.withLock { $0 } }) else { return 0 }
                fill = buffer
                fillCount = 0
                pendingSince = now
            }
            let n = min(remaining, Self.chunkSize - fillCount)
            (fill! + fillCount).copyMemory(from: source, byteCount: n)
            fillCount += n
            source += n
            remaining -= n
            if fillCount == Self.chunkSize, !handOver() { return 0 }
        }
        // On a slow link hand over what has arrived once it is 100 ms old, so progress still shows.
        if fill != nil, now - pendingSince >= Self.maxPendingAge, !handOver() { return 0 }
        // Cancellation is seen at every hand-over and by the progress callback, which libcurl
        // calls after every read: no lock per callback here.
        return length
    }

    /// libcurl's progress callback: after every read, and about once a second while nothing
    /// arrives. Hands over bytes that have waited `maxPendingAge`, so what arrived before a stall
    /// reaches the file (and the progress report) within about a second, not only when the next
    /// byte comes. Non-zero aborts the transfer (cancelled).
    private func onTick() -> Int32 {
        if isCancelled { return 1 }
        if fill != nil, DispatchTime.now().uptimeNanoseconds - pendingSince >= Self.maxPendingAge, !handOver() { return 1 }
        return 0
    }

    /// Queues the buffer being filled as a chunk (no copy). False if cancelled.
    @discardableResult
    private func handOver() -> Bool {
        guard let buffer = fill else { return true }
        let count = fillCount
        fill = nil
        fillCount = 0
        return enqueue(.chunk(pool.data(buffer, count: count)), bytes: count)
    }

    /// Queues an event, waiting while the consumer is this request's share of the queue behind:
    /// `maxQueuedBytes`, or less when the pool's budget is shared with other requests (so one
    /// slow consumer cannot hold every buffer). False if cancelled.
    @discardableResult
    private func enqueue(_ event: Event, bytes: Int) -> Bool {
        let share = min(maxQueuedBytes, pool.budget / max(1, pool.userCount))
        condition.lock()
        while queuedBytes > 0 && queuedBytes + bytes > share && !cancelled {
            condition.wait()
        }
        if cancelled {
            condition.unlock()
            return false
        }
        events.append(event)
        queuedBytes += bytes
        peakQueued = max(peakQueued, queuedBytes)
        let w = waiter
        waiter = nil
        condition.unlock()
        w?.resume()
        return true
    }

    // MARK: Async side

    private func next() async -> Event {
        while true {
            let event: Event? = {
                condition.lock()
                defer { condition.unlock() }
                guard !events.isEmpty else { return nil }
                let e = events.removeFirst()
                if case .chunk(let d) = e {
                    queuedBytes -= d.count
                    condition.broadcast()
                }
                return e
            }()
            if let event { return event }
            await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                condition.lock()
                if events.isEmpty {
                    waiter = c
                    condition.unlock()
                } else {
                    condition.unlock()
                    c.resume()
                }
            }
        }
    }

    func deliver(to consumer: any HTTPBodyConsumer) async throws {
        var sawHead = false
        while true {
            switch await next() {
            case .head(let head):
                sawHead = true
                try await consumer.receive(head: head)
            case .chunk(let data):
                try await consumer.receive(chunk: data)
            case .finished(let code, let message):
                if Task.isCancelled || isCancelled { throw CancellationError() }
                if code != 0, let tls = CurlErrorText.tlsError(code: code, message: message, host: route.tlsPeer(host: host, connectStatus: proxyConnectStatus),
                                                               peer: peerCertificate, locations: caLocations) {
                    throw route.throughProxy(tls, host: host, connectStatus: proxyConnectStatus)
                }
                if code != 0, let proxy = route.server {
                    throw CurlProxyErrorText.apiError(code: code, message: message, host: host, proxy: proxy, connectStatus: proxyConnectStatus)
                }
                if code != 0 { throw CurlErrorText.apiError(code: code, message: message, host: host, port: request.url.port) }
                if !sawHead { throw APIError.transport("\(host) closed the connection without answering") }
                return
            }
        }
    }

    func waitUntilFinished() async {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            condition.lock()
            if finished {
                condition.unlock()
                c.resume()
            } else {
                finishWaiters.append(c)
                condition.unlock()
            }
        }
    }
}

/// The NUL-terminated text in `buffer`.
func cString(_ buffer: [CChar]) -> String {
    String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

/// Calls `body` with a C array of C strings.
func withCStrings<R>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>?) -> R) -> R {
    let duplicated = strings.map { strdup($0) }
    defer { duplicated.forEach { free($0) } }
    let pointers = duplicated.map { UnsafePointer($0) }
    return pointers.withUnsafeBufferPointer { body($0.baseAddress) }
}

/// Calls `body` with the bytes of `data`, or nil.
func withOptionalBytes<R>(_ data: Data?, _ body: (UnsafeRawPointer?, Int) -> R) -> R {
    guard let data else { return body(nil, 0) }
    return data.withUnsafeBytes { body($0.baseAddress, $0.count) }
}
#endif
