import Foundation
import Manashiki

/// Builds a `StoreSnapshot` from a directory: `stat` for every `<valid-id>.bin`, and SHA-256
/// only for files that changed behind our back and could still be a wanted artifact.
package enum StoreScanner {
    /// The identities of every `<valid-id>.bin` regular file in the store. Nothing else is read.
    package static func identities(_ layout: StoreLayout) -> [String: FileIdentity] {
        var result: [String: FileIdentity] = [:]
        for name in (try? FileManager.default.contentsOfDirectory(atPath: layout.directory.path)) ?? [] {
            guard let id = ModelID.modelId(fromFileName: name), let identity = FileIdentity.of(layout.modelFile(id)) else { continue }
            result[id] = identity
        }
        return result
    }

    /// Hashes the files whose identity differs from the state, when their size is one an
    /// expected artifact could have (`candidateSizes`: the catalog's and the state's sizes for
    /// that id); a file of any other size is wrong without hashing.
    package static func snapshot(
        _ layout: StoreLayout,
        state: StoreState,
        identities: [String: FileIdentity],
        candidateSizes: [String: Set<Int64>]
    ) async -> StoreSnapshot {
        var files: [String: StoreSnapshot.File] = [:]
        var toHash: [String: URL] = [:]
        var bytes: Int64 = 0
        for (id, identity) in identities {
            files[id] = StoreSnapshot.File(identity: identity)
            if state.models[id]?.identity == identity { continue }
            if candidateSizes[id, default: []].contains(identity.size) {
                toHash[id] = layout.modelFile(id)
                bytes += identity.size
            }
        }
        let digests = await FileHasher.sha256(of: Array(toHash.values))
        for (id, url) in toHash {
            if case .success(let sha)? = digests[url] { files[id]?.hashedSHA256 = sha }
        }
        return StoreSnapshot(state: state, files: files, bytesHashed: bytes)
    }
}
