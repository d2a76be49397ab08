import Foundation
import Manashiki
import ManashikiSync

extension StatusCommand {
    /// `trust.tuf` in `status`: each top-level role's version and expiry as the last refresh
    /// verified them (the store's `.manashiki/tuf/metadata`, read-only, no network), when the
    /// latest check was, and a warning for every role that expires within
    /// `TUFTrustedState.expiryWarningInterval` (or has expired).
    struct TUFView {
        /// `trust.tuf.metadataURL`; nil when status runs without a manifest that configures it.
        var metadataURL: URL?
        /// What the store holds.
        var state: TUFTrustedState
        /// The latest time a sync checked trust (`high-water.json`'s `latestCheck`).
        var lastCheck: Date?
        /// The time the view was made.
        var now: Date

        /// Shown when the manifest configures `trust.tuf` or the store holds trusted metadata.
        static func make(layout: StoreLayout, manifest: Manifest?, now: Date) -> TUFView? {
            let state = TUFTrustedState(store: TUFMetadataStore(directory: layout.tufMetadataDirectory))
            let url = manifest?.trust.tuf?.metadataURL
            guard url != nil || !state.isEmpty else { return nil }
            let lastCheck = FileManager.default.fileExists(atPath: layout.trustHighWaterFile.path)
                ? FileHighWaterMarks(file: layout.trustHighWaterFile).latestCheck() : nil
            return TUFView(metadataURL: url, state: state, lastCheck: lastCheck, now: now)
        }

        /// One sentence per role that expires soon or expired, and per file that cannot be read.
        var warnings: [String] {
            var out: [String] = []
            for role in state.expiringSoon(at: now) {
                let when = StatusCommand.minute(role.expires) + " UTC"
                if role.isExpired(at: now) {
                    out.append("the signed \(role.name) (v\(role.version)) expired at \(when): nothing new is installed until a sync fetches one the publisher re-signed; installed models stay and verify")
                } else {
                    out.append("the signed \(role.name) (v\(role.version)) expires in \(StatusCommand.left(role.secondsLeft(at: now))), at \(when) "
                        + "(less than the \(Int(TUFTrustedState.expiryWarningInterval / 3600)) h warning threshold): after that nothing new is installed "
                        + "unless a sync fetches a newer one; check that syncs run and that the publisher re-signs it")
                }
            }
            for name in state.unreadable {
                out.append("the trusted \(name).json in the store cannot be read (damaged or too large): the next sync verifies and fetches it again")
            }
            return out
        }

        /// The lines of the text output.
        func lines(width: Int) -> [String] {
            let heading = "Signed metadata (trust.tuf)" + (metadataURL.map { " from \($0.absoluteString)" } ?? "")
            guard !state.roles.isEmpty else {
                return [heading + ": not verified yet (no sync has checked trust in this store)"] + warnings.map { "Warning: " + $0 }
            }
            var lines = [heading + ", as last verified" + (lastCheck.map { " (trust checked \(StatusCommand.minute($0)) UTC)" } ?? "") + ":"]
            let table = SummaryTable.render(headers: ["ROLE", "VERSION", "EXPIRES (UTC)", "LEFT"], rows: state.roles.map { role in
                [role.name, String(role.version), StatusCommand.minute(role.expires),
                 role.isExpired(at: now) ? "expired" : StatusCommand.left(role.secondsLeft(at: now))]
            }, width: width)
            lines += table
            return lines + warnings.map { "Warning: " + $0 }
        }

        /// The `tuf` object of `status --json`.
        var fields: StatusTUFFields {
            StatusTUFFields(metadataURL: metadataURL?.absoluteString, lastCheck: lastCheck.map(JSONEventWriter.timestamp),
                            warningThresholdSeconds: Int(TUFTrustedState.expiryWarningInterval),
                            roles: state.roles.map { role in
                                StatusTUFRoleFields(role: role.name, version: role.version, expires: JSONEventWriter.timestamp(role.expires),
                                                    secondsLeft: Int(role.secondsLeft(at: now).rounded(.down)), expired: role.isExpired(at: now),
                                                    expiringSoon: state.expiringSoon(at: now).contains(role))
                            },
                            unreadable: state.unreadable, warnings: warnings)
        }
    }

    /// `2026-12-02 05:31`: UTC to the minute.
    static func minute(_ date: Date) -> String {
        String(ISO8601DateFormatter().string(from: date).prefix(16)).replacingOccurrences(of: "T", with: " ")
    }

    /// Time left, for people: `3 d 4 h` from two days up, else `5h20m`, `12m05s`.
    static func left(_ seconds: TimeInterval) -> String {
        guard seconds >= 2 * 86_400 else { return DurationText.approximate(max(0, seconds)) }
        let hours = Int(seconds / 3600)
        return "\(hours / 24) d \(hours % 24) h"
    }
}

/// `status --json`'s `tuf`: null without `trust.tuf` and without trusted metadata in the store.
struct StatusTUFFields: Encodable {
    /// `trust.tuf.metadataURL`; null when status runs without such a manifest.
    @Null var metadataURL: String?
    /// The latest time a sync checked trust (ISO 8601); null when none is recorded.
    @Null var lastCheck: String?
    /// Below this many seconds left a role is `expiringSoon` (`TUFTrustedState.expiryWarningInterval`).
    var warningThresholdSeconds: Int
    /// Each top-level role found, as last verified: empty before the first sync with trust.
    var roles: [StatusTUFRoleFields]
    /// Roles whose stored file cannot be read.
    var unreadable: [String]
    /// The warnings the text output prints.
    var warnings: [String]
}

/// One role in `status --json`'s `tuf.roles`.
struct StatusTUFRoleFields: Encodable {
    var role: String
    var version: Int
    var expires: String
    /// Seconds from now until it expires (negative once expired).
    var secondsLeft: Int
    var expired: Bool
    var expiringSoon: Bool
}
