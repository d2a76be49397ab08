import Foundation
import Manashiki

/// What `Verifier.verify(_:)` found.
public struct VerificationReport: Sendable, Equatable {
    /// One model file's verdict.
    public enum Verdict: Sendable, Equatable {
        /// The file's SHA-256 (`sha256`, as hashed now) matches the state.
        case ok(version: String, sha256: String)
        /// The file's SHA-256 or size differs from the state.
        case corrupt(expected: String, actual: String)
        /// The state records the model but the file is gone.
        case missing
        /// A `<valid-id>.bin` the state does not know (copied in by hand, or no state file).
        case unknown(sha256: String)
        /// The file could not be read.
        case unreadable(String)
    }

    /// Verdicts by model id.
    public var files: [String: Verdict]
    /// Bytes hashed.
    public var bytesHashed: Int64
    /// A note when the state file is missing or unusable, or the store does not exist.
    public var stateNote: String?
    /// Whether the store directory exists (when it does not, every expected model is `.missing`).
    public var storeExists: Bool

    /// Creates a report.
    public init(files: [String: Verdict], bytesHashed: Int64 = 0, stateNote: String? = nil, storeExists: Bool = true) {
        self.files = files
        self.bytesHashed = bytesHashed
        self.stateNote = stateNote
        self.storeExists = storeExists
    }

    /// A report of nothing.
    public static let empty = VerificationReport(files: [:])

    /// Whether every recorded file is intact and present (unknown files do not count).
    public var isHealthy: Bool {
        files.values.allSatisfy { if case .ok = $0 { return true }; if case .unknown = $0 { return true }; return false }
    }

    /// The models to download again (corrupt, missing or unreadable), sorted.
    public var damagedModelIds: [String] {
        files.filter { _, verdict in
            switch verdict {
            case .corrupt, .missing, .unreadable: return true
            case .ok, .unknown: return false
            }
        }.keys.sorted()
    }
}

/// Re-hashes installed files against the state, offline (no registry request).
///
/// ```swift
/// let report = await Verifier.verify(StoreLayout(directory: storeURL))
/// for (id, verdict) in report.files { print(id, verdict) }
/// ```
public enum Verifier {
    /// Hashes every `<valid-id>.bin` in the store (2 files at a time, 4 MiB reads) and compares
    /// with the state file. Nothing is modified.
    ///
    /// - Parameter expected: the models that should be installed (a manifest's entries for this
    ///   device). When the store directory does not exist, each of them is `.missing` (a
    ///   deleted store is a store whose every model is missing).
    public static func verify(_ layout: StoreLayout, expecting expected: [String] = []) async -> VerificationReport {
        guard FileManager.default.fileExists(atPath: layout.directory.path) || expected.isEmpty else {
            return VerificationReport(files: Dictionary(expected.map { ($0, .missing) }, uniquingKeysWith: { a, _ in a }),
                                      stateNote: StoreLayout.absentNote(layout.directory), storeExists: false)
        }
        var note: String?
        var state = StoreState()
        switch StateFile.read(layout) {
        case .missing: note = "no state file: every model file is reported as unknown"
        case .loaded(let s): state = s
        case .unusable(let why): note = why
        case .newer(let version): note = StateFile.newerFormatMessage(version)
        }
        let identities = StoreScanner.identities(layout)
        var urls: [String: URL] = [:]
        for id in identities.keys { urls[id] = layout.modelFile(id) }
        let digests = await FileHasher.sha256(of: Array(urls.values))
        var files: [String: VerificationReport.Verdict] = [:]
        var bytes: Int64 = 0
        for (id, url) in urls {
            let installed = state.models[id]
            switch digests[url] {
            case .success(let sha)?:
                bytes += identities[id]?.size ?? 0
                if let installed {
                    files[id] = sha == installed.sha256 && identities[id]?.size == installed.size
                        ? .ok(version: installed.version, sha256: sha) : .corrupt(expected: installed.sha256, actual: sha)
                } else {
                    files[id] = .unknown(sha256: sha)
                }
            case .failure(let error)?: files[id] = .unreadable(error.description)
            case nil: files[id] = .unreadable("not hashed")
            }
        }
        for id in state.models.keys where identities[id] == nil { files[id] = .missing }
        return VerificationReport(files: files, bytesHashed: bytes, stateNote: note)
    }
}
