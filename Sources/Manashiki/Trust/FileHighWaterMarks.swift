import Foundation

/// High-water marks in a JSON file
/// (`{"formatVersion": 1, "models": {"tiny": "1.2.0"}, "latestCheck": "2026-12-07T18:00:00Z"}`),
/// replaced durably. The sync agent keeps it at `<store>/.manashiki/trust/high-water.json`
/// (`StoreLayout.trustHighWaterFile`); so do apps on Linux (`AppTrustMarks`).
public final class FileHighWaterMarks: TrustHighWaterMarks, @unchecked Sendable {
    /// The file.
    public let file: URL
    private let ledger: HighWaterLedger

    /// Marks kept in `file`.
    public init(file: URL) {
        self.file = file
        ledger = HighWaterLedger(load: { TUFMetadataStore.readBounded(file, maxLength: 4 << 20) }, save: { data in
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try DurableFile.replace(file, with: data)
        })
    }

    public func highest(_ modelId: String) -> String? { ledger.highest(modelId) }

    public func record(_ version: String, for modelId: String) throws { try ledger.record(version, for: modelId) }

    public func latestCheck() -> Date? { ledger.latestCheck() }

    public func recordCheck(_ date: Date) throws { try ledger.recordCheck(date) }
}
