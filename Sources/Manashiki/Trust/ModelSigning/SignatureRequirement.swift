import Foundation

/// Whether a model must carry a valid publisher signature.
public enum SignatureRequirement: String, Sendable, Hashable, CaseIterable {
    /// Nothing is installed, replaced or kept as verified without a valid signature.
    case required
    /// A signature that is found must be valid; a model without one is installed unsigned (with
    /// a warning). A signature that is found and does not verify is still refused.
    case optional
}
