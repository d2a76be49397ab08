import Foundation
import ManashikiCore

/// Runs work in the time the system grants a process that is in the background, and tells the
/// work when that time runs out, so it stops between steps instead of being suspended in the
/// middle of one (`BackgroundInstall` hashes in 4 MiB blocks and checks `stop` before each).
///
/// | platform | how |
/// |---|---|
/// | iOS, iPadOS, Mac Catalyst, tvOS, watchOS, visionOS | `ProcessInfo.performExpiringActivity(withReason:using:)`: the block runs on a system concurrent queue with `expired == false` while a task assertion is held; when the system is about to suspend the process it calls the block again with `true` (`stop` then answers true). When no assertion can be had, the only call has `true`: the work then runs at once with `stop` already true, so it records what it could not do (`installDeferred`) and ends |
/// | macOS | apps are not suspended: a utility-priority queue, `stop` never true |
/// | Linux | the same (tests inject their own runner into `BackgroundTransfers`) |
///
/// Availability (developer.apple.com/documentation/foundation/processinfo/performexpiringactivity(withreason:using:)
/// and NSProcessInfo.h): iOS 8.2, Mac Catalyst 13.1, tvOS 9, watchOS 2, visionOS 1;
/// `API_UNAVAILABLE(macos)`, hence the `#if`. The Swift block type is `@Sendable (Bool) -> Void`.
/// Not run here: no Apple runtime is available to this repository's CI.
enum BackgroundTime {
    /// Runs `work`, whose argument says when to stop.
    static func perform(reason: String, _ work: @escaping @Sendable (_ stop: @escaping @Sendable () -> Bool) -> Void) {
        #if os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
        let state = Locked((started: false, expired: false))
        ProcessInfo.processInfo.performExpiringActivity(withReason: reason) { expired in
            let run = state.withLock { s -> Bool in
                if expired { s.expired = true }
                guard !s.started else { return false }
                s.started = true
                return true
            }
            guard run else { return }
            if expired {
                work { true }
            } else {
                work { state.withLock { $0.expired } }
            }
        }
        #else
        DispatchQueue.global(qos: .utility).async { work { false } }
        #endif
    }
}
