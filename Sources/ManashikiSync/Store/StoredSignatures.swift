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
    public var signatureDirectory: URL { metadataDirectory.appendingPathComponent("signatures", isDirectory: true) }

    /// `<store>/.manashiki/signatures/<modelId>.sig`.
    public func signatureFile(_ modelId: String) -> URL { signatureDirectory.appendingPathComponent("\(modelId).sig") }
}

/// The store's copies of the publisher signatures its models were installed with, so `verify`
/// re-checks them offline, a kept model is checked again without the network, and `export`
/// carries them to bundles, mirrors and OCI registries. Written durably (`DurableFile`); the
/// state's `Installed.signer.signatureSHA256` says which copy belongs to the installed file.
enum StoredSignatures {
    /// Stores `data` as `modelId`'s signature.
    /// - Throws: `APIError.fileSystem`.
    static func write(_ data: Data, for modelId: String, in layout: StoreLayout) throws {
        try FileManager.default.createDirectory(at: layout.signatureDirectory, withIntermediateDirectories: true)
        try DurableFile.replace(layout.signatureFile(modelId), with: data)
    }

    /// `modelId`'s stored signature when its SHA-256 is `sha256` (nil: none, another, unreadable).
    static func read(_ modelId: String, sha256: String, in layout: StoreLayout) -> Data? {
        let url = layout.signatureFile(modelId)
        guard let info = POSIX.lstatInfo(url.path), POSIX.isRegular(info), Int(info.st_size) <= SignatureURLLocator.maximumSize,
              let data = FileManager.default.contents(atPath: url.path), SHA256Hasher.hash(data).hex == sha256 else { return nil }
        return data
    }

    /// Removes `modelId`'s stored signature (a pruned or evicted model), if any.
    static func remove(_ modelId: String, in layout: StoreLayout) {
        _ = unlink(layout.signatureFile(modelId).path)
    }
}
