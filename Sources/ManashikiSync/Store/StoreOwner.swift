import Foundation

/// Who a sync run claims models for in a store that several apps share.
///
/// On macOS, apps outside a sandbox and the CLI all default to
/// `~/Library/Application Support/ManashikiModels` with one state file. Each installed model
/// records the owners that want it, and a prune deletes a model only when no other owner still
/// claims it (`StoreState.Installed.owners`).
public enum StoreOwner {
    /// This process's owner name: the app's bundle identifier, or `default` (the CLI, Linux
    /// services, tests), so every run of one app, and every CLI run, is the same owner.
    public static var current: String {
        if let id = Bundle.main.bundleIdentifier, !id.isEmpty { return id }
        return "default"
    }
}
