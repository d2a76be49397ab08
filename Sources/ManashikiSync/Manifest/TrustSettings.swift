import Foundation

/// The manifest's `trust` section: what, beyond the registry's digest, an artifact needs before
/// it is installed, replaced or kept as verified.
public struct TrustSettings: Sendable, Hashable {
    /// `trust.modelSigning`: publisher signatures; nil when the section is absent.
    public var modelSigning: ModelSigningSettings?

    /// Creates settings.
    public init(modelSigning: ModelSigningSettings? = nil) {
        self.modelSigning = modelSigning
    }

    /// Whether any trust is configured.
    public var isConfigured: Bool { modelSigning != nil }
}
