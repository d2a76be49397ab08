import Foundation
import ManashikiCore

/// The one implementation of `TrustHighWaterMarks`' rules over a stored document, whatever
/// keeps it: a file (`FileHighWaterMarks`) or a Keychain item (`KeychainHighWaterMarks`).
/// Every change is a read, a change and a write of the whole document under one lock.
///
/// The document (format 1): `{"formatVersion": 1, "models": {"tiny": "1.2.0"},
/// "latestCheck": "2026-12-07T18:00:00Z"}`, keys sorted. One of another format, or damaged,
/// reads as no marks.
final class HighWaterLedger: @unchecked Sendable {
    /// The marks.
    struct Document: Equatable {
        var models: [String: String] = [:]
        var latestCheck: Date?

        /// The document in `data`; empty when it is of another format or damaged.
        init(_ data: Data?) {
            guard let data, let object = (try? JSONValue.parse(data))?.foundationValue as? [String: Any], // the strict reader: a duplicate key is refused
                  object["formatVersion"] as? Int == 1 else { return }
            models = object["models"] as? [String: String] ?? [:]
            latestCheck = (object["latestCheck"] as? String).flatMap(TUFTime.parse)
        }

        /// Format 1, keys sorted.
        func encoded() throws -> Data {
            var document: [String: Any] = ["formatVersion": 1, "models": models]
            if let latestCheck { document["latestCheck"] = TUFTime.format(latestCheck) }
            return try JSONSerialization.data(withJSONObject: document, options: [.sortedKeys])
        }
    }

    private let lock = NSLock()
    /// The stored bytes, nil when there are none; throws when they cannot be read (a change is
    /// then refused rather than written over marks it could not see).
    private let load: @Sendable () throws -> Data?
    /// Replaces the stored bytes.
    private let save: @Sendable (Data) throws -> Void

    init(load: @escaping @Sendable () throws -> Data?, save: @escaping @Sendable (Data) throws -> Void) {
        self.load = load
        self.save = save
    }

    /// The marks as stored (none when they cannot be read).
    var current: Document {
        lock.lock()
        defer { lock.unlock() }
        return Document(try? load())
    }

    /// Changes the stored marks with `change` (nothing is written when it returns false).
    func update(_ change: (inout Document) -> Bool) throws {
        lock.lock()
        defer { lock.unlock() }
        var document = Document(try load())
        guard change(&document) else { return }
        try save(try document.encoded())
    }

    func highest(_ modelId: String) -> String? { current.models[modelId] }

    func record(_ version: String, for modelId: String) throws {
        try update { document in
            document.models[modelId] = version
            return true
        }
    }

    func latestCheck() -> Date? { current.latestCheck }

    func recordCheck(_ date: Date) throws {
        try update { document in
            if let latest = document.latestCheck, latest >= date { return false }
            document.latestCheck = date
            return true
        }
    }
}
