import Foundation

/// Where models go when the app names no directory, per platform.
///
/// | platform | directory | why |
/// |---|---|---|
/// | iOS, iPadOS, visionOS, watchOS, macOS (sandboxed: the app's container) | Application Support/ManashikiModels | persistent, not user-visible; files are excluded from iCloud backup |
/// | macOS, not sandboxed | ~/Library/Application Support/ManashikiModels | shared by every such app and the CLI: each run records its owner, and prunes only what no other owner still wants |
/// | tvOS | Caches/ManashikiModels | tvOS apps have no persistent local storage beyond Caches ("Local storage for your app is limited", App Programming Guide for tvOS); the system may purge it, and the reconciler restores it |
/// | Linux | $XDG_DATA_HOME/ManashikiModels (~/.local/share/ManashikiModels) | FileManager's Application Support there |
enum DefaultStore {
    /// The directory `ManashikiModels` is created in, or nil when the system gives none.
    static var baseDirectory: URL? {
        #if os(tvOS)
        return FileManager.default.urls(for: .cachesDirectory, in: .userDomainMask).first
        #else
        return FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first
        #endif
    }
}
