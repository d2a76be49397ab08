import Foundation
import Manashiki

/// Reads and atomically writes `<store>/.manashiki/state.json`.
///
/// Writes go to `state.json.tmp.<random>`, are fsynced, renamed over `state.json`, and the
/// directory is fsynced: a crash leaves either the old or the new state, never half of one.
public enum StateFile {
    /// What reading the state file found.
    public enum ReadResult: Sendable, Equatable {
        /// No state file: a new store, or one restored from a backup without it.
        case missing
        /// The state.
        case loaded(StoreState)
        /// A state file that cannot be used (corrupt); the store is then treated as unknown and
        /// every file is re-hashed.
        case unusable(String)
        /// A state file written by a newer agent (this format version): never overwrite it;
        /// the agent must be upgraded.
        case newer(Int)
    }

    /// Reads the state file of `layout`.
    public static func read(_ layout: StoreLayout) -> ReadResult {
        let data: Data
        do {
            // No store or no `.manashiki` yet: nothing installed. A symbolic link there is
            // refused by every writer; here it means no state this agent wrote.
            guard let metadata = try? layout.openMetadata(creating: false),
                  let read = try metadata.read(StoreLayout.stateFileName, limit: maxBytes) else { return .missing }
            data = read
        } catch {
            return .unusable("state.json cannot be read (\(error.localizedDescription))")
        }
        switch VersionedJSON.decode(StoreState.self, from: data, supported: StoreState.currentFormatVersion) {
        case .success(let state): return .loaded(state)
        case .failure(.newer(let version)): return .newer(version)
        case .failure(.unsupported(let version)):
            return .unusable("state.json has format version \(version); this version reads \(StoreState.currentFormatVersion)")
        case .failure(.notJSON(let why)): return .unusable("state.json is not valid JSON (\(why))")
        case .failure(.notVersionedJSON), .failure(.missingVersion): return .unusable("state.json is not valid JSON")
        case .failure(.invalid): return .unusable("state.json could not be decoded")
        }
    }

    /// What to tell a person whose store was written by a newer agent.
    public static func newerFormatMessage(_ version: Int) -> String {
        "the store's state file was written by a newer \(Remedy.agent) (format \(version); this one reads \(StoreState.currentFormatVersion)); upgrade this agent — nothing was changed"
    }

    /// Writes `state` atomically (`DurableFile`, through `.manashiki`'s descriptor).
    /// - Throws: `APIError.fileSystem` when the file cannot be written.
    public static func write(_ state: StoreState, to layout: StoreLayout) throws {
        // Compact: read on every run.
        try layout.openMetadata(creating: false).replace(StoreLayout.stateFileName, with: VersionedJSON.encode(state, pretty: false))
    }

    /// The most bytes of a state file read (about 1 KiB a model, record included): a larger
    /// file is not one this agent wrote, and is unusable (every file is hashed again).
    public static let maxBytes = 32 << 20
}
