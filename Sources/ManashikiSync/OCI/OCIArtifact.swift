import Foundation
import ManashikiCore
import Manashiki

/// An OCI content descriptor (`mediaType`, `digest`, `size`, optional `annotations`).
struct OCIDescriptor: Codable, Sendable, Hashable {
    var mediaType: String
    var digest: String
    var size: Int64
    var annotations: [String: String]?
}

/// An OCI image manifest, as pushed and as read (unknown fields are ignored).
struct OCIImageManifest: Codable, Sendable, Hashable {
    var schemaVersion: Int
    var mediaType: String?
    var artifactType: String?
    var config: OCIDescriptor
    var layers: [OCIDescriptor]
    var annotations: [String: String]?
}

/// The artifact a tag holds: the bundle index its config carries, checked against its layers.
struct OCIArtifact: Sendable {
    /// The manifest's digest (`sha256:…`).
    var manifestDigest: String
    /// The index (each entry has a layer of that digest and size).
    var index: BundleIndex
    /// Entries of the config without a matching layer (dropped, named in a warning).
    var unmatched: [PinnedArtifact]

    /// The manifest and config `export oci://` pushes for `artifacts` (sorted as a bundle
    /// index sorts them, so the same selection always gives the same bytes and digest).
    static func build(_ artifacts: [PinnedArtifact]) throws -> (manifest: Data, config: Data, configDigest: String) {
        let index = BundleIndex(models: artifacts)
        let config = try index.encoded()
        let configDigest = SHA256Hasher.hash(config).hex
        let manifest = OCIImageManifest(
            schemaVersion: 2, mediaType: OCIMediaTypes.imageManifest, artifactType: OCIMediaTypes.artifactType,
            config: OCIDescriptor(mediaType: OCIMediaTypes.config, digest: "sha256:\(configDigest)", size: Int64(config.count)),
            layers: index.models.map { a in
                OCIDescriptor(mediaType: OCIMediaTypes.modelLayer, digest: "sha256:\(a.sha256)", size: a.size, annotations: [
                    OCIMediaTypes.titleAnnotation: ModelID.fileName(for: a.modelId),
                    OCIMediaTypes.modelIdAnnotation: a.modelId, OCIMediaTypes.versionAnnotation: a.version,
                ])
            } + index.models.compactMap { a in
                a.signature.map { sig in
                    OCIDescriptor(mediaType: OCIMediaTypes.signatureLayer, digest: "sha256:\(sig.sha256)", size: sig.size, annotations: [
                        OCIMediaTypes.titleAnnotation: ModelID.fileName(for: a.modelId) + ".sig", OCIMediaTypes.modelIdAnnotation: a.modelId,
                    ])
                }
            }, annotations: nil)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try encoder.encode(manifest), config, configDigest)
    }

    /// Checks that a manifest is our artifact and returns it with its config's digest.
    /// - Throws: `OCIError.notAnArtifact` naming what it is instead; `.invalidArtifact`.
    static func checkManifest(_ body: Data, contentType: String, reference: OCIReference) throws -> OCIImageManifest {
        // The strict reader, as every document: duplicate keys (which registries and clients
        // would read differently) and documents beyond `JSONLimits` are not a manifest.
        let tree = try? JSONValue.parse(body)
        var declared: String?
        if case .object(let members)? = tree, case .string(let type)? = members["mediaType"] { declared = type }
        let type = declared ?? (contentType.isEmpty ? OCIMediaTypes.imageManifest : contentType)
        guard type == OCIMediaTypes.imageManifest else { throw OCIError.notAnArtifact(reference, found: "a manifest of media type \(type)") }
        guard let tree, let manifest = try? StrictJSONDecoder().decode(OCIImageManifest.self, from: tree), manifest.schemaVersion == 2 else {
            throw OCIError.invalidArtifact(reference, detail: "its manifest is not a valid OCI image manifest (schemaVersion 2)")
        }
        // The image spec: tools fall back to config.mediaType when artifactType is absent.
        let kind = manifest.artifactType ?? manifest.config.mediaType
        guard kind == OCIMediaTypes.artifactType || (manifest.artifactType == nil && kind == OCIMediaTypes.config) else {
            throw OCIError.notAnArtifact(reference, found: manifest.artifactType != nil ? "an artifact of type \(kind)" : "an image manifest with config \(kind)")
        }
        guard manifest.config.mediaType == OCIMediaTypes.config, digestHex(manifest.config.digest) != nil else {
            throw OCIError.invalidArtifact(reference, detail: "its config is \(manifest.config.mediaType) \(manifest.config.digest.prefix(80)), not a bundle index (\(OCIMediaTypes.config), sha256)")
        }
        return manifest
    }

    /// The artifact from a checked manifest and its config's bytes.
    static func assemble(_ manifest: OCIImageManifest, manifestDigest: String, config: Data, reference: OCIReference) throws -> OCIArtifact {
        let index: BundleIndex
        do { index = try BundleIndex.decode(config, location: "\(reference) config") } catch let error as ArtifactFileError {
            throw OCIError.invalidArtifact(reference, detail: "its config \(error.message) — \(error.hint)")
        }
        var layers = Set<String>()
        for layer in manifest.layers { if let hex = digestHex(layer.digest) { layers.insert("\(hex) \(layer.size)") } }
        var kept: [PinnedArtifact] = [], unmatched: [PinnedArtifact] = []
        for var entry in index.models {
            // A signature the manifest does not carry is not named (the model still is).
            if let sig = entry.signature, !layers.contains("\(sig.sha256) \(sig.size)") { entry.signature = nil }
            if layers.contains("\(entry.sha256) \(entry.size)") { kept.append(entry) } else { unmatched.append(entry) }
        }
        return OCIArtifact(manifestDigest: manifestDigest, index: BundleIndex(models: kept), unmatched: unmatched)
    }

    /// `sha256:<64 hex>` → the hex; nil for anything else.
    static func digestHex(_ digest: String) -> String? {
        guard digest.hasPrefix("sha256:") else { return nil }
        let hex = String(digest.dropFirst(7))
        return Hex.isSHA256(hex) ? hex : nil
    }
}
