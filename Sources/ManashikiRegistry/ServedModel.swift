/// A model as the development registry serves it: its record and the file of its current
/// version. (Not `ModelEntry`, which is the SDK's wire type.)
struct ServedModel: Sendable {
    /// The record (its `artifact` is the current version's).
    var model: RegistryModel
    /// The current version's bytes.
    var artifact: StoredArtifact
}
