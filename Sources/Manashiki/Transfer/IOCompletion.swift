import ManashikiCore

/// A one-shot result that a thread sets and a task awaits.
final class IOCompletion: @unchecked Sendable {
    private let state = Locked<(result: Result<Void, any Error>?, waiter: CheckedContinuation<Void, any Error>?)>((nil, nil))

    func finish(_ body: () throws -> Void) {
        let result: Result<Void, any Error> = Result { try body() }
        let waiter = state.withLock { s -> CheckedContinuation<Void, any Error>? in
            s.result = result
            defer { s.waiter = nil }
            return s.waiter
        }
        waiter?.resume(with: result)
    }

    func value() async throws {
        try await withCheckedThrowingContinuation { (c: CheckedContinuation<Void, any Error>) in
            let ready = state.withLock { s -> Result<Void, any Error>? in
                if s.result == nil { s.waiter = c }
                return s.result
            }
            if let ready { c.resume(with: ready) }
        }
    }
}
