import Foundation
import ManashikiCore
import Manashiki

/// What the last `manashiki-sync sync` did, kept in `<store>/.manashiki/last-run.json`
/// (`StoreLayout.lastRunFile`) for `status`; written by the command, beside the state file.
package struct LastRunRecord: Sendable, Codable, Equatable {
    /// `manashiki-sync/last-run/v1`.
    package var schema: String = LastRunRecord.schemaName
    /// The command (`sync`, `verify --repair`).
    package var command: String
    /// When it started and finished (ISO 8601 in the file).
    package var startedAt: Date
    /// When it finished.
    package var finishedAt: Date
    /// The outcome word (`changed`, `partial-failure`…).
    package var outcome: String
    /// The exit code.
    package var exitCode: Int32
    /// Results by status.
    package var counts: [String: Int]
    /// Bytes downloaded.
    package var bytesDownloaded: Int64
    /// The run-level error, if any.
    package var error: String?
    /// When the last run that exited 0 finished (this one or an earlier one); nil if none has.
    /// Carried from record to record, so a failed run does not lose it (absent in older records).
    package var lastSuccessAt: Date?
    /// Where each bucket source's credentials came from, by label (never a secret; absent in
    /// older records and for runs without buckets).
    package var sourceCredentials: [String: String]?

    /// Creates a record.
    package init(command: String, startedAt: Date, finishedAt: Date, outcome: String, exitCode: Int32,
                 counts: [String: Int], bytesDownloaded: Int64, error: String?, lastSuccessAt: Date?,
                 sourceCredentials: [String: String]? = nil) {
        self.command = command
        self.startedAt = startedAt
        self.finishedAt = finishedAt
        self.outcome = outcome
        self.exitCode = exitCode
        self.counts = counts
        self.bytesDownloaded = bytesDownloaded
        self.error = error
        self.lastSuccessAt = lastSuccessAt
        self.sourceCredentials = sourceCredentials
    }

    /// The latest success this record knows: its own end if it exited 0, else `lastSuccessAt`.
    package var latestSuccess: Date? { exitCode == 0 ? finishedAt : lastSuccessAt }

    /// The most bytes of a record read (one is under 1 KiB).
    static let maxBytes = 1 << 20

    /// The schema name.
    package static let schemaName = "manashiki-sync/last-run/v1"

    /// The record's path in `layout`.
    package static func url(_ layout: StoreLayout) -> URL { layout.lastRunFile }

    /// Writes the record atomically (`DurableFile`); failures are returned as text (the run's
    /// result stands). A store directory that cannot be created or written is no failure of its
    /// own: the run's error already says why, and there is nowhere to record it.
    package func write(to layout: StoreLayout) -> String? {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        do {
            let metadata: DirectoryHandle
            do { metadata = try layout.openPreparedMetadata() } catch where !Self.isDirectory(layout.directory) || layout.writeProblem() != nil { return nil }
            try metadata.replace(StoreLayout.lastRunFileName, with: encoder.encode(self))
            return nil
        } catch {
            return "the last-run record could not be written: \(error.localizedDescription)"
        }
    }

    private static func isDirectory(_ url: URL) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) && isDirectory.boolValue
    }

    /// Reads the record, or nil when there is none (or it is unreadable).
    package static func read(_ layout: StoreLayout) -> LastRunRecord? {
        guard let metadata = try? layout.openMetadata(creating: false),
              let data = try? metadata.read(StoreLayout.lastRunFileName, limit: maxBytes) else { return nil }
        return try? StrictJSONDecoder(dates: .iso8601).decode(LastRunRecord.self, from: data)
    }
}
