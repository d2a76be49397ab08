import Foundation
import ManashikiCore

/// Enforces a request's `DocumentLimits` while a document is read
/// (`HTTPTransport.send(_:)`, `HTTPTransport.streamDocument(_:to:)`): the transfer races a watcher that wakes at each rate window (and
/// at the deadline), counts the bytes that arrived, and ends the transfer, by cancelling it,
/// when the document is too slow or too late. Above the transport: any transport that honours
/// cancellation (the protocol's contract) is bounded the same way.
enum DocumentWatch {
    /// What the watcher saw: bytes so far, and when the head arrived.
    final class Meter: Sendable {
        private let state = Locked<(bytes: Int, headAt: ContinuousClock.Instant?)>((0, nil))
        func head() { state.withLock { if $0.headAt == nil { $0.headAt = .now } } }
        func add(_ count: Int) { state.withLock { $0.bytes += count } }
        var current: (bytes: Int, headAt: ContinuousClock.Instant?) { state.current }
    }

    /// Hands a response on to `inner`, counting it in `meter` first.
    final class MeteredConsumer: HTTPBodyConsumer, Sendable {
        let inner: any HTTPBodyConsumer
        let meter = Meter()
        init(_ inner: any HTTPBodyConsumer) { self.inner = inner }

        func receive(head: HTTPResponseHead) async throws {
            meter.head()
            try await inner.receive(head: head)
        }

        func receive(chunk: Data) async throws {
            meter.add(chunk.count)
            try await inner.receive(chunk: chunk)
        }
    }

    /// Runs `transfer` (which reports to `meter`) within `limits`.
    /// - Throws: `APIError.transport` naming `url`'s host and the limit; the transfer's error.
    static func run(_ limits: DocumentLimits, url: URL, meter: Meter, _ transfer: @escaping @Sendable () async throws -> Void) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await transfer() }
            group.addTask { try await watch(limits, url: url, meter: meter) }
            defer { group.cancelAll() }
            _ = try await group.next()
        }
    }

    /// Wakes at each window's end and at the deadline; returns never (cancelled when the transfer
    /// ends first) or throws the limit that was crossed.
    private static func watch(_ limits: DocumentLimits, url: URL, meter: Meter) async throws {
        let clock = ContinuousClock()
        let start = clock.now
        let deadline = start + .seconds(limits.timeout)
        let window = Duration.seconds(max(limits.rateWindow, 0.1))
        var windowStart: (at: ContinuousClock.Instant, bytes: Int)?
        let ratesWatched = limits.minimumBytesPerSecond > 0
        while true {
            let now = clock.now
            let seen = meter.current
            if ratesWatched, windowStart == nil, let headAt = seen.headAt { windowStart = (headAt, 0) }
            // The limit crossed first is the one named: a watcher woken late (a busy machine)
            // still reports a rate window that ended before the deadline.
            let windowEnded = windowStart.map { now - $0.at >= window && $0.at + window <= deadline } ?? false
            if now >= deadline && !windowEnded { throw tooLate(limits, url: url, bytes: seen.bytes) }
            if let begun = windowStart, windowEnded {
                let needed = Int(Double(limits.minimumBytesPerSecond) * ((now - begun.at) / .seconds(1)))
                if seen.bytes - begun.bytes < needed { throw tooSlow(limits, url: url, bytes: seen.bytes - begun.bytes, over: now - begun.at) }
                windowStart = (now, seen.bytes)
            }
            // Without a minimum rate only the deadline is watched (a window never ends).
            let nextCheck = windowStart.map { $0.at + window } ?? (ratesWatched ? now + window : deadline)
            try await Task.sleep(until: min(nextCheck, deadline), clock: clock)
        }
    }

    /// `host:port/path` (never the query, nor any user info).
    private static func what(_ url: URL) -> String {
        guard let host = url.host else { return "the server's answer" }
        return (url.port.map { "\(host):\($0)" } ?? host) + url.path
    }

    static func tooLate(_ limits: DocumentLimits, url: URL, bytes: Int) -> APIError {
        .transport("\(what(url)) did not finish arriving within \(seconds(limits.timeout)) (\(bytes) bytes arrived); a document that takes longer is not waited for (policies.documents.timeoutSeconds) — check the server or the network, or raise the limit")
    }

    static func tooSlow(_ limits: DocumentLimits, url: URL, bytes: Int, over: Duration) -> APIError {
        .transport("\(what(url)) arrived too slowly: \(bytes) bytes in \(seconds(over / .seconds(1))), below \(ByteSize.text(Int64(limits.minimumBytesPerSecond)))/s (policies.documents.minBytesPerSecond) — a server that drips a document is broken or hostile; check it, or lower the minimum")
    }

    private static func seconds(_ value: Double) -> String { String(format: value == value.rounded() ? "%.0f s" : "%.1f s", value) }
}
