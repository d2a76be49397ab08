import Foundation
import ManashikiCore

/// High-water marks in a JSON file
/// (`{"formatVersion": 1, "models": {"tiny": "1.2.0"}, "latestCheck": "2026-12-07T18:00:00Z"}`),
/// replaced durably. The sync agent keeps it at `<store>/.manashiki/trust/high-water.json`
/// (`StoreLayout.trustHighWaterFile`).
public final class FileHighWaterMarks: TrustHighWaterMarks, @unchecked Sendable {
    /// The file.
    public let file: URL
    private let lock = NSLock()

    /// Marks kept in `file`.
    public init(file: URL) { self.file = file }

    public func highest(_ modelId: String) -> String? {
        lock.lock()
        defer { lock.unlock() }
        return read().models[modelId]
    }

    public func record(_ version: String, for modelId: String) throws {
        lock.lock()
        defer { lock.unlock() }
        var marks = read()
        marks.models[modelId] = version
        try write(marks)
    }

    public func latestCheck() -> Date? {
        lock.lock()
        defer { lock.unlock() }
        return read().latestCheck
    }

    public func recordCheck(_ date: Date) throws {
        lock.lock()
        defer { lock.unlock() }
        var marks = read()
        if let latest = marks.latestCheck, latest >= date { return }
        marks.latestCheck = date
        try write(marks)
    }

    private struct Marks {
        var models: [String: String] = [:]
        var latestCheck: Date?
    }

    private func read() -> Marks {
        guard let data = TUFMetadataStore.readBounded(file, maxLength: 4 << 20),
              let object = (try? JSONValue.parse(data))?.foundationValue as? [String: Any], // the strict reader: a duplicate key is refused
              object["formatVersion"] as? Int == 1 else { return Marks() }
        return Marks(models: object["models"] as? [String: String] ?? [:],
                     latestCheck: (object["latestCheck"] as? String).flatMap(TUFTime.parse))
    }

    private func write(_ marks: Marks) throws {
        var document: [String: Any] = ["formatVersion": 1, "models": marks.models]
        if let latest = marks.latestCheck { document["latestCheck"] = TUFTime.format(latest) }
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try DurableFile.replace(file, with: JSONSerialization.data(withJSONObject: document, options: [.sortedKeys]))
    }
}
