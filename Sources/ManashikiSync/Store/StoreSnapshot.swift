import Foundation
import Manashiki

/// What is on disk, as the planner sees it: the state file's contents and every
/// `<valid-id>.bin` file with its identity and, when it was (re)hashed, its digest.
///
/// A value: the planner is a pure function of it. `StoreScanner` builds one from a directory.
package struct StoreSnapshot: Sendable, Hashable {
    /// One model file.
    package struct File: Sendable, Hashable {
        /// What `stat` says now.
        package var identity: FileIdentity
        /// The digest, when the file was hashed during this run (its identity did not match the
        /// state); nil when it was trusted by `stat` or not worth hashing.
        package var hashedSHA256: String?

        /// Creates a file entry.
        package init(identity: FileIdentity, hashedSHA256: String? = nil) {
            self.identity = identity
            self.hashedSHA256 = hashedSHA256
        }
    }

    /// The state file's contents (empty when missing or unusable).
    package var state: StoreState
    /// Model files by model id.
    package var files: [String: File]
    /// Bytes re-hashed to build this snapshot.
    package var bytesHashed: Int64

    /// Creates a snapshot.
    package init(state: StoreState = StoreState(), files: [String: File] = [:], bytesHashed: Int64 = 0) {
        self.state = state
        self.files = files
        self.bytesHashed = bytesHashed
    }

    /// Whether the file of `modelId` is unchanged since the state recorded it.
    package func isTrusted(_ modelId: String) -> Bool {
        guard let file = files[modelId], let installed = state.models[modelId] else { return false }
        return file.identity == installed.identity
    }
}
