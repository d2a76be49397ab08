import Foundation

/// Hands a body on to `base` chunk by chunk, each only once `limiter` grants its bytes. The
/// transport awaits every call before reading further, so while this waits nothing more is
/// read or buffered: the rate limit is backpressure, not a queue.
final class RateLimitedConsumer: HTTPBodyConsumer {
    let base: any HTTPBodyConsumer
    let limiter: BandwidthLimiter

    init(_ base: any HTTPBodyConsumer, limiter: BandwidthLimiter) {
        self.base = base
        self.limiter = limiter
    }

    func receive(head: HTTPResponseHead) async throws { try await base.receive(head: head) }

    func receive(chunk: Data) async throws {
        try await limiter.acquire(chunk.count)
        try await base.receive(chunk: chunk)
    }
}
