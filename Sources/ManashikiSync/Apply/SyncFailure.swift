import Foundation
import Manashiki

/// Why an action failed, and whether trying again later can help.
public struct SyncFailure: Error, Sendable, Equatable, CustomStringConvertible, LocalizedError {
    /// Retryable failures (rate limits, 5xx, network) may succeed later unchanged; terminal
    /// ones (integrity, not found, no session…) need someone to act.
    public enum Kind: String, Sendable, Hashable {
        /// Try again later.
        case retryable
        /// Someone must change something first.
        case terminal
    }

    /// Retryable or terminal.
    public var kind: Kind
    /// What happened and what to do (never a key or a token).
    public var message: String
    /// The SDK error behind it, if any.
    public var apiError: APIError?
    /// Attempts made.
    public var attempts: Int
    /// Whether this is the run's cancellation (`cancelled`), not a failure of the model.
    public private(set) var isCancellation = false
    /// The trust that refused the artifact, when that is the failure (terminal unless
    /// `TrustRefusal.isRetryable`); the installed file stays.
    public var trust: TrustRefusal?

    /// Creates a failure.
    public init(kind: Kind, message: String, apiError: APIError? = nil, attempts: Int = 1) {
        self.kind = kind
        self.message = message
        self.apiError = apiError
        self.attempts = attempts
    }

    /// Wraps any error: `APIError`s keep their retryability, `SyncFailure`s pass through, the
    /// rest are terminal.
    public init(_ error: any Error, attempts: Int = 1) {
        if let failure = error as? SyncFailure { self = failure; self.attempts = max(failure.attempts, attempts); return }
        if let refusal = error as? TrustRefusal {
            self.init(kind: refusal.isRetryable ? .retryable : .terminal, message: refusal.description, attempts: attempts)
            trust = refusal
            return
        }
        if let api = error as? APIError {
            self.init(kind: api.isRetryable ? .retryable : .terminal, message: api.description, apiError: api, attempts: attempts)
        } else {
            self.init(kind: .terminal, message: (error as? LocalizedError)?.errorDescription ?? "\(type(of: error))", attempts: attempts)
        }
    }

    /// The run was cancelled.
    public static let cancelled: SyncFailure = {
        var failure = SyncFailure(kind: .retryable, message: "cancelled")
        failure.isCancellation = true
        return failure
    }()

    /// Whether trying again later can help.
    public var isRetryable: Bool { kind == .retryable }

    /// The message, with the attempt count when there were retries.
    public var description: String { attempts > 1 ? "\(message) (after \(attempts) attempts)" : message }

    /// Same as `description`.
    public var errorDescription: String? { description }
}

