import Foundation

/// Why TUF metadata or a target was refused, or could not be had: the role (`root`,
/// `timestamp`, `snapshot`, `targets`, a delegated role, or a target path) and the reason.
///
/// A refusal (`isRefusal`) means the repository's answer is not trustworthy: retrying will not
/// help until its publisher fixes it (or an attacker stops). `unavailable` is the exception: the
/// metadata could not be fetched at all (network, HTTP status), which a retry may cure.
public struct TUFError: Error, Sendable, Hashable, LocalizedError, CustomStringConvertible {
    /// What went wrong.
    public enum Reason: Sendable, Hashable {
        /// The file is not TUF metadata of the expected shape; the text says what.
        case malformed(String)
        /// The file is larger than the most accepted for it (before any byte was parsed).
        case tooLarge(limit: Int)
        /// Fewer distinct keys signed than the threshold: `signed` of `threshold`. For a new root,
        /// `by` names whose keys: `"trusted root v3"` or `"new root v4"`.
        case threshold(signed: Int, threshold: Int, by: String)
        /// A version other than the one required (a new root must be exactly N+1; snapshot and
        /// targets must be the version the timestamp and snapshot name).
        case unexpectedVersion(expected: Int, found: Int)
        /// A version older than one already trusted: a rollback attack (or a repository reset).
        case rollback(trusted: Int, offered: Int)
        /// A role the trusted snapshot lists is missing from the new one.
        case removed(String)
        /// The metadata expired at `expires`, before the update's reference time `now`.
        case expired(expires: Date, now: Date)
        /// Length or hash of the file differ from what the referring metadata says.
        case mismatch(String)
        /// The target path is not in any role trusted to sign it.
        case targetNotFound
        /// The metadata could not be fetched: the text says why (an HTTP status, a network error).
        case unavailable(String)
    }

    /// The role (`timestamp`, a delegated role's name) or the target path concerned.
    public var role: String
    /// Why.
    public var reason: Reason

    /// Creates an error.
    public init(role: String, reason: Reason) {
        self.role = role
        self.reason = reason
    }

    /// Whether this is a trust refusal (retrying will not help) rather than metadata that
    /// could not be fetched.
    public var isRefusal: Bool {
        if case .unavailable = reason { return false }
        return true
    }

    /// A stable name of the reason for `--json` output and metrics: `malformed`, `too-large`,
    /// `threshold`, `unexpected-version`, `rollback`, `removed`, `expired`, `mismatch`,
    /// `target-not-found`, `unavailable`.
    public var reasonCode: String {
        switch reason {
        case .malformed: "malformed"
        case .tooLarge: "too-large"
        case .threshold: "threshold"
        case .unexpectedVersion: "unexpected-version"
        case .rollback: "rollback"
        case .removed: "removed"
        case .expired: "expired"
        case .mismatch: "mismatch"
        case .targetNotFound: "target-not-found"
        case .unavailable: "unavailable"
        }
    }

    /// One sentence: what was refused and why, then what to do.
    public var description: String {
        switch reason {
        case .malformed(let what):
            "TUF metadata \(role) is malformed: \(what). The repository's publisher must fix it; nothing was trusted from it."
        case .tooLarge(let limit):
            "TUF metadata \(role) is larger than \(limit) bytes and was not read. A repository serving it is broken or hostile."
        case .threshold(let signed, let threshold, let by):
            "TUF metadata \(role) is signed by \(signed) of the \(threshold) distinct keys \(by) requires: refused. A key counts once however many signatures name it."
        case .unexpectedVersion(let expected, let found):
            "TUF metadata \(role) is version \(found) where version \(expected) is required: refused."
        case .rollback(let trusted, let offered):
            "TUF metadata \(role) version \(offered) is older than the trusted version \(trusted): a rollback, refused. If the repository was really reset, its publisher must rotate keys."
        case .removed(let name):
            "The new snapshot no longer lists \(name), which the trusted snapshot does: refused."
        case .expired(let expires, let now):
            "TUF metadata \(role) expired at \(ISO8601.string(from: expires)) (the reference time is \(ISO8601.string(from: now))): nothing new is installed until the publisher re-signs it. Installed models stay."
        case .mismatch(let what):
            "\(role): \(what): refused."
        case .targetNotFound:
            "\(role) is not a target of the signed repository: nothing signed vouches for it."
        case .unavailable(let why):
            "TUF metadata \(role) could not be fetched: \(why). Check the metadata URL and the network; retrying may help."
        }
    }

    /// Same as `description`.
    public var errorDescription: String? { description }
}
