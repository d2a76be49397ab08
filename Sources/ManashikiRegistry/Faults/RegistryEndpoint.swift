import Foundation

/// The endpoints a fault can be attached to.
public enum RegistryEndpoint: String, Sendable, Hashable, CaseIterable {
    /// `GET /api/models`.
    case catalog
    /// `GET /api/models/{modelId}`.
    case model
    /// `GET /api/download/{modelId}`.
    case download
    /// `POST /api/session`.
    case session
    /// `POST /api/uploads/model` (matched on the `modelId` of the request body).
    case upload
    /// `GET`/`HEAD` of a signed download URL on the storage origin.
    case storage
    /// `PUT` of an upload URL on the storage origin.
    case storageUpload = "storage_upload"
    /// `GET /tuf/metadata/…` (`serve --tuf`): a fault fires on `timestamp.json`, the first file
    /// of every refresh (the rule has no model).
    case tufMetadata = "tuf"
}
