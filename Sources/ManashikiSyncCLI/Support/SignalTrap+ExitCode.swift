import Foundation
import ManashikiCore

extension SignalTrap {
    /// The exit code for a signal: 130 for SIGINT, 143 for SIGTERM; nil for none.
    static func exitCode(for signal: Int32?) -> ExitCode? {
        switch signal {
        case SIGINT?: return .interrupted
        case SIGTERM?: return .terminated
        default: return nil
        }
    }

    /// The exit code for the first signal any trap in this process caught (nil if none), so
    /// that summaries written before the trap is consulted name the right status (143 for
    /// SIGTERM, not 130).
    static var caughtExitCode: ExitCode? { exitCode(for: firstCaughtInProcess) }

    /// The exit code for the signal this trap caught.
    var exitCode: ExitCode? { Self.exitCode(for: signal) }
}
