import Foundation

/// The highest version of each model installed with trust, and the latest time trust was
/// checked, kept where a restore of the app's files cannot roll them back (in an app on Apple
/// platforms the Keychain, `KeychainHighWaterMarks`; elsewhere a file, `FileHighWaterMarks`
/// under the store's `.manashiki/`, the sync agent's: `AppTrustMarks.forStore(_:)` chooses).
public protocol TrustHighWaterMarks: Sendable {
    /// The highest version recorded for `modelId`.
    func highest(_ modelId: String) -> String?
    /// Records `version` as the highest for `modelId`.
    func record(_ version: String, for modelId: String) throws
    /// The latest clock reading at which signed metadata was checked (nil: never).
    func latestCheck() -> Date?
    /// Records `date` as the latest check when it is later than the one recorded.
    func recordCheck(_ date: Date) throws
}

extension TrustHighWaterMarks {
    /// The time to judge expiry against: the clock, or the latest check when the clock reads
    /// earlier (a clock set back does not make expired metadata fresh again). Records the
    /// clock's reading as the latest check when it is later.
    public func referenceTime(clock: Date) -> Date {
        let latest = latestCheck()
        if let latest, latest > clock { return latest }
        try? recordCheck(clock)
        return clock
    }
}
