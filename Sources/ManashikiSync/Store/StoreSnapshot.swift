import Foundation
import Manashiki

/// What is on disk, as the planner sees it: the state file's contents and every
/// `<valid-id>.bin` file with its identity and, when it was (re)hashed, its digest.
///
/// A value: the planner is a pure function of it. `StoreScanner` builds one from a directory.
public struct StoreSnapshot: Sendable, Hashable {
    /// One model file.
    public struct File: Sendable, Hashable {
        /// What `stat` says now.
        public var identity: FileIdentity
        /// The digest, when the file was hashed during this run (its identity did not match the
        /// state); nil when it was trusted by `stat` or not worth hashing.
        public var hashedSHA256: String?

        /// Creates a file entry.
        public init(identity: FileIdentity, hashedSHA256: String? = nil) {
            self.identity = identity
            self.hashedSHA256 = hashedSHA256
        }
    }

    /// The state file's contents (empty when missing or unusable).
    public var state: StoreState
    /// Model files by model id.
    public var files: [String: File]
    /// Bytes re-hashed to build this snapshot.
    public var bytesHashed: Int64

    /// Creates a snapshot.
    public init(state: StoreState = StoreState(), files: [String: File] = [:], bytesHashed: Int64 = 0) {
        self.state = state
        self.files = files
        self.bytesHashed = bytesHashed
    }

    /// Whether the file of `modelId` is unchanged since the state recorded it.
    public func isTrusted(_ modelId: String) -> Bool {
        guard let file = files[modelId], let installed = state.models[modelId] else { return false }
        return file.identity == installed.identity
    }
}
