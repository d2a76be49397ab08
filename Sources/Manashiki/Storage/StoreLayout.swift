import Foundation

/// The paths of a model store: the one place that names what lives under
/// `<store>/.manashiki/` (the SDK's storage directory and the sync agent's store are the same
/// directory).
///
/// ```text
/// <store>/<modelId>.bin                              models, exactly as the SDK writes them
/// <store>/.manashiki/state.json                      what the agent installed (StateFile)
/// <store>/.manashiki/last-run.json                   what the last `manashiki-sync sync` did
/// <store>/.manashiki/lock                            the cross-process lock (StoreLock)
/// <store>/.manashiki/partial/<id>.<rnd>.partial      downloads in progress or kept to resume
/// <store>/.manashiki/partial/<id>.<rnd>.partial.json the sidecar of a kept partial download
/// <store>/.manashiki/background/<session>/<id>.json  a background session's record of a model
///                                                    (resume data, or a finished file awaiting
///                                                    verification; BackgroundRecord)
/// <store>/.manashiki/tuf/metadata/                   trusted TUF metadata (`trust.tuf`; TUFMetadataStore)
/// <store>/.manashiki/trust/high-water.json           per-model high-water marks and the latest
///                                                    time trust was checked (FileHighWaterMarks)
/// ```
/// Files named `<name>.tmp.<16 hex>` are temporary files of a durable write (see `DurableFile`).
public struct StoreLayout: Sendable, Hashable {
    /// The store directory.
    public let directory: URL

    /// A layout rooted at `directory`.
    public init(directory: URL) { self.directory = directory.standardizedFileURL }

    /// `.manashiki`: the private folder's name inside the store.
    public static let metadataFolderName = ".manashiki"
    /// `partial`: the folder of partial downloads, inside the private folder.
    public static let partialFolderName = "partial"
    /// `state.json`.
    public static let stateFileName = "state.json"
    /// `last-run.json`.
    public static let lastRunFileName = "last-run.json"
    /// `lock`.
    public static let lockFileName = "lock"
    /// `background`: the folder of background sessions' records, inside the private folder.
    public static let backgroundFolderName = "background"
    /// The extension of partial downloads (`partial`).
    public static let partialExtension = "partial"
    /// What follows a partial download's name to name its sidecar (`.json`).
    public static let sidecarSuffix = ".json"

    /// `<store>/.manashiki`.
    public var metadataDirectory: URL { directory.appendingPathComponent(Self.metadataFolderName, isDirectory: true) }
    /// `<store>/.manashiki/state.json`.
    public var stateFile: URL { metadataDirectory.appendingPathComponent(Self.stateFileName) }
    /// `<store>/.manashiki/last-run.json`.
    public var lastRunFile: URL { metadataDirectory.appendingPathComponent(Self.lastRunFileName) }
    /// `<store>/.manashiki/lock`.
    public var lockFile: URL { metadataDirectory.appendingPathComponent(Self.lockFileName) }
    /// `<store>/.manashiki/partial`.
    public var partialDirectory: URL { metadataDirectory.appendingPathComponent(Self.partialFolderName, isDirectory: true) }
    /// `<store>/.manashiki/tuf/metadata`: the trusted TUF metadata of the store's `trust.tuf` repository.
    public var tufMetadataDirectory: URL {
        metadataDirectory.appendingPathComponent("tuf", isDirectory: true).appendingPathComponent("metadata", isDirectory: true)
    }
    /// `<store>/.manashiki/trust/high-water.json`: the highest version installed with trust, per model.
    public var trustHighWaterFile: URL {
        metadataDirectory.appendingPathComponent("trust", isDirectory: true).appendingPathComponent("high-water.json")
    }
    /// `<store>/.manashiki/background`.
    public var backgroundDirectory: URL { metadataDirectory.appendingPathComponent(Self.backgroundFolderName, isDirectory: true) }
    /// `<store>/.manashiki/partial/<name>`.
    public func partialFile(_ name: String) -> URL { partialDirectory.appendingPathComponent(name) }

    /// `<store>/<modelId>.bin`.
    public func modelFile(_ modelId: String) -> URL { directory.appendingPathComponent(ModelID.fileName(for: modelId)) }

    /// A fresh name for a partial download of `modelId`: `<id>.<16 hex>.partial`.
    static func newPartialName(for modelId: String) -> String {
        "\(modelId).\(POSIX.randomSuffix()).\(partialExtension)"
    }

    /// Whether `name` (in the partial folder) is a partial download's data file.
    static func isPartialName(_ name: String) -> Bool { name.hasSuffix("." + partialExtension) }

    /// The sidecar's name of the partial download `name`.
    static func sidecarName(of name: String) -> String { name + sidecarSuffix }

    /// The partial download a sidecar (or a sidecar's temporary file) belongs to, if `name` is one.
    static func partialName(ofSidecar name: String) -> String? {
        let marker = "." + partialExtension + sidecarSuffix
        guard let range = name.range(of: marker) else { return nil }
        let rest = name[range.upperBound...]
        guard rest.isEmpty || rest.hasPrefix(DurableFile.temporaryInfix) else { return nil }
        return String(name[..<range.lowerBound]) + "." + partialExtension
    }

    /// The model id in a partial download's name, if it is one.
    static func modelId(ofPartial name: String) -> String? {
        guard isPartialName(name) else { return nil }
        let parts = name.dropLast(partialExtension.count + 1).split(separator: ".")
        guard parts.count >= 2 else { return nil }
        return parts.dropLast().joined(separator: ".")
    }
}
