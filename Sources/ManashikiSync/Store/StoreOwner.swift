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

    /// Why `name` cannot be an owner name, or nil when it can: 1 to 128 letters, digits, `.`,
    /// `_` or `-` (a bundle identifier, a service name), so it reads the same in the state file,
    /// logs and metrics.
    public static func problem(with name: String) -> String? {
        if name.isEmpty || name.count > 128 { return "must be 1 to 128 characters" }
        let allowed = name.unicodeScalars.allSatisfy { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "._-".unicodeScalars.contains($0)) }
        return allowed ? nil : "may hold only letters, digits, '.', '_' and '-'"
    }
}
