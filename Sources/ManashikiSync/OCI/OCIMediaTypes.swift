import Foundation

/// The media types and annotations of the OCI artifact `export oci://` pushes and OCI sources
/// read. Chosen after the OCI image spec's artifact guidance and the CNCF ModelPack spec
/// (docs/fleets-and-images.md, "Registries (OCI)", says the same for operators):
///
/// * The manifest is a plain **OCI image manifest** (`application/vnd.oci.image.manifest.v1+json`),
///   the one manifest every registry stores, replicates and garbage-collects (Harbor,
///   distribution, GHCR, ECR, Artifactory, zot); artifact-specific manifest types are not.
/// * **`artifactType` and the config are ours** (`application/vnd.manashiki.bundle.v1`,
///   config `application/vnd.manashiki.bundle.index.v1+json`). The config blob *is* a bundle's
///   `index.json` (the same versioned `BundleIndex`: model id, version, size, digest and
///   record facts), so an offline plan reads an artifact exactly as it reads a bundle. ModelPack's
///   `application/vnd.cncf.model.manifest.v1+json` describes *one* model with a ModelPack
///   config (architecture, format, parameters); ours is a *set* of exact artifacts with
///   registry facts, and claiming ModelPack's type would make ModelPack tools mistake N
///   models for the weight files of one. A reader also accepts a manifest without
///   `artifactType` whose `config.mediaType` is ours (the image spec tells tools to fall back to
///   it, and clients such as oras-py never set `artifactType`).
/// * **Each layer is one model file, unchanged**: its digest is the model's SHA-256 (no
///   tar, no compression: model files do not compress, and a re-packed layer would have another
///   digest than the catalog's). Its media type is ModelPack's
///   `application/vnd.cncf.model.weight.v1.raw` ("an unarchived, uncompressed model weights
///   file"), which is exactly what it is, so model tooling recognises the bytes. Each carries
///   `org.opencontainers.image.title` = `<id>.bin` (ORAS-style clients pull it as that file) and
///   `com.manashiki.model.id` / `.version`. Readers take the facts from the config, never from
///   the layer's media type or annotations, and accept any layer type.
/// * **A publisher signature is a layer too** (#36): the model's `model.sig` as it was
///   verified, media type `application/vnd.dev.sigstore.bundle.v0.3+json` (Sigstore's own),
///   titled `<id>.bin.sig`; the config's entry names it (`PinnedArtifact.signature`).
/// * The manifest has no creation time, so pushing the same selection twice gives the same
///   manifest digest (an idempotent push; the registry then stores nothing new).
public enum OCIMediaTypes {
    /// The OCI image manifest.
    public static let imageManifest = "application/vnd.oci.image.manifest.v1+json"
    /// The OCI image index (refused as a source tag: it is not our artifact).
    public static let imageIndex = "application/vnd.oci.image.index.v1+json"
    /// Our artifact type.
    public static let artifactType = "application/vnd.manashiki.bundle.v1"
    /// Our config: a bundle index (`BundleIndex` JSON, format version first).
    public static let config = "application/vnd.manashiki.bundle.index.v1+json"
    /// A model file as a layer (ModelPack's raw weights type).
    public static let modelLayer = "application/vnd.cncf.model.weight.v1.raw"
    /// A publisher signature's layer: a Sigstore bundle v0.3 (`model.sig`).
    public static let signatureLayer = "application/vnd.dev.sigstore.bundle.v0.3+json"

    /// The layer annotation ORAS-style clients name the pulled file by.
    public static let titleAnnotation = "org.opencontainers.image.title"
    /// The layer annotation naming the model.
    public static let modelIdAnnotation = "com.manashiki.model.id"
    /// The layer annotation naming the model's version.
    public static let versionAnnotation = "com.manashiki.model.version"

    /// The `Accept` header for a manifest request: the types a registry may answer with, so
    /// that a tag of another kind comes back as what it is and can be refused naming it.
    public static let manifestAccept = [imageManifest, imageIndex,
                                        "application/vnd.docker.distribution.manifest.v2+json",
                                        "application/vnd.docker.distribution.manifest.list.v2+json"].joined(separator: ", ")
}
