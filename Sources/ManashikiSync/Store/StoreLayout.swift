import Foundation
import Manashiki

/// The paths of a model store.
///
/// ```text
/// <store>/<modelId>.bin                     models, exactly as the SDK writes them
/// <store>/.manashiki/state.json             what the agent installed (StateFile)
/// <store>/.manashiki/lock                   the cross-process lock (StoreLock)
/// <store>/.manashiki/partial/*.partial      downloads in progress (the SDK's)
/// ```
public struct StoreLayout: Sendable, Hashable {
    /// The store directory.
    public let directory: URL

    /// A layout rooted at `directory`.
    public init(directory: URL) { self.directory = directory.standardizedFileURL }

    /// `<store>/.manashiki`.
    public var metadataDirectory: URL { directory.appendingPathComponent(".manashiki", isDirectory: true) }
    /// `<store>/.manashiki/state.json`.
    public var stateFile: URL { metadataDirectory.appendingPathComponent("state.json") }
    /// `<store>/.manashiki/lock`.
    public var lockFile: URL { metadataDirectory.appendingPathComponent("lock") }
    /// `<store>/.manashiki/partial`.
    public var partialDirectory: URL { metadataDirectory.appendingPathComponent("partial", isDirectory: true) }

    /// `<store>/<modelId>.bin`.
    public func modelFile(_ modelId: String) -> URL { directory.appendingPathComponent(ModelID.fileName(for: modelId)) }

    /// Creates the store and metadata directories if needed.
    /// - Throws: `APIError.fileSystem` when they cannot be created.
    public func prepare() throws {
        do {
            try FileManager.default.createDirectory(at: metadataDirectory, withIntermediateDirectories: true)
        } catch {
            throw APIError.fileSystem(operation: "create the store directory", path: directory.path, code: POSIX.errnoCode(of: error))
        }
    }
}
