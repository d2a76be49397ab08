import Testing
import Foundation
import Manashiki
@testable import ManashikiSync
import ManashikiCore

@Suite("Retry policy")
struct RetryPolicyTests {
    let policy = RetryPolicy(maxAttempts: 4, baseDelay: .seconds(1), maxDelay: .seconds(5), maxRetryAfter: .seconds(60), jitter: 0.5, sleep: { _ in }, random: { 1.0 })

    @Test("backoff doubles, is capped, and adds jitter")
    func backoff() {
        let e = APIError.server(status: 500, message: nil)
        #expect(policy.delay(after: 1, error: e) == .milliseconds(1500))
        #expect(policy.delay(after: 2, error: e) == .seconds(3))
        #expect(policy.delay(after: 5, error: e) == .milliseconds(7500))
    }

    @Test("Retry-After is honoured up to the cap, then spread by up to half of it (at least a 1 s window)")
    func retryAfter() {
        #expect(policy.delay(after: 1, error: .rateLimited(retryAfter: 7)) == .milliseconds(10_500))
        #expect(policy.delay(after: 1, error: .rateLimited(retryAfter: 3600)) == .seconds(90))
        #expect(policy.delay(after: 1, error: .rateLimited(retryAfter: 0)) == .seconds(1))
        var low = policy
        low.random = { 0 }
        #expect(low.delay(after: 1, error: .rateLimited(retryAfter: 7)) == .seconds(7), "never earlier than the server asked")
        #expect(policy.delay(after: 1, error: .rateLimited(retryAfter: nil)) == .milliseconds(1500))
    }

    @Test("terminal errors are not retried; retryable ones are, up to maxAttempts")
    func run() async {
        let count = Locked(0)
        await #expect(throws: SyncFailure(kind: .terminal, message: APIError.modelNotFound("x").description, apiError: .modelNotFound("x"), attempts: 1)) {
            try await policy.run { count.withLock { $0 += 1 }; throw APIError.modelNotFound("x") }
        }
        #expect(count.current == 1)
        count.withLock { $0 = 0 }
        do {
            _ = try await policy.run { count.withLock { $0 += 1 }; throw APIError.transport("reset") }
        } catch let failure as SyncFailure {
            #expect(failure.kind == .retryable)
            #expect(failure.attempts == 4)
        } catch { Issue.record("unexpected \(error)") }
        #expect(count.current == 4)
    }
}
