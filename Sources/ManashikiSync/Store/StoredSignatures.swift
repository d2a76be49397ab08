import Foundation
import Manashiki
import ManashikiCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension StoreLayout {
    /// `<store>/.manashiki/signatures`: the publisher signature each installed model verified
    /// with (`trust.modelSigning`).
    public var signatureDirectory: URL { metadataDirectory.appendingPathComponent(StoredSignatures.folder, isDirectory: true) }

    /// `<store>/.manashiki/signatures/<modelId>.sig`.
    public func signatureFile(_ modelId: String) -> URL { signatureDirectory.appendingPathComponent("\(modelId).sig") }
}

/// The store's copies of the publisher signatures its models were installed with, so `verify`
/// re-checks them offline, a kept model is checked again without the network, and `export`
/// carries them to bundles, mirrors and OCI registries. Written durably (`DurableFile`); the
/// state's `Installed.signer.signatureSHA256` says which copy belongs to the installed file.
enum StoredSignatures {
    /// `signatures`, under `.manashiki/`.
    static let folder = "signatures"

    /// Stores `data` as `modelId`'s signature (through the store's descriptors: a symbolic link
    /// in the way is refused, not followed).
    /// - Throws: `APIError.fileSystem`.
    static func write(_ data: Data, for modelId: String, in layout: StoreLayout) throws {
        try layout.openMetadataFolder(folder, creating: true).replace("\(modelId).sig", with: data)
    }

    /// `modelId`'s stored signature when its SHA-256 is `sha256` (nil: none, another, unreadable).
    static func read(_ modelId: String, sha256: String, in layout: StoreLayout) -> Data? {
        guard let directory = try? layout.openMetadataFolder(folder, creating: false),
              let data = try? directory.read("\(modelId).sig", limit: SignatureURLLocator.maximumSize),
              SHA256Hasher.hash(data).hex == sha256 else { return nil }
        return data
    }

    /// `modelId`'s stored signature as `reference` names it (what `export` carries), read
    /// through the store's descriptors like every file of the store.
    /// - Throws: `SyncFailure` (terminal) naming the store's copy when it is missing, unreadable
    ///   or no longer the one the state records.
    static func blob(_ modelId: String, _ reference: SignatureReference, in layout: StoreLayout) throws -> Data {
        guard let data = read(modelId, sha256: reference.sha256, in: layout), Int64(data.count) == reference.size else {
            throw SyncFailure(kind: .terminal, message: "the store's copy \(layout.signatureFile(modelId).path) is missing or changed")
        }
        return data
    }

    /// Removes `modelId`'s stored signature (a pruned or evicted model), if any.
    static func remove(_ modelId: String, in layout: StoreLayout) {
        _ = (try? layout.openMetadataFolder(folder, creating: false))?.remove("\(modelId).sig")
    }
}
