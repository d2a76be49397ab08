import Foundation

/// How much a manifest insists on a model (`models[i].class`).
///
/// ```json
/// {"id": "whisper-small", "class": "optional", "priority": 10}
/// ```
/// With a `store.budget`, optional and on-demand models are evicted, least recently used first,
/// when a required model, an update or an `ensure` needs the room; a required model never is.
public enum ModelClass: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Installed by every sync, or the run fails (the default).
    case required
    /// Installed when it can be delivered and the budget has room, in `priority` order (then
    /// manifest order); skipped with a warning when it cannot be delivered.
    case optional
    /// Never fetched by `sync`: installed when an app or an operator asks for it
    /// (`Reconciler.ensure(_:)`, `manashiki-sync ensure ID…`), kept current while installed.
    case onDemand

    /// The manifest's spelling: `required`, `optional`, `onDemand`.
    public var description: String { rawValue }
}
