import Foundation

/// The one way the agent turns a path from a manifest, a flag or a key source into a file URL.
package enum PathResolver {
    /// Resolves `path`: absolute, `~` / `~/…` (the home directory), or relative to `base` (the
    /// current directory when nil).
    package static func resolve(_ path: String, against base: URL?) -> URL {
        if path.hasPrefix("/") { return URL(fileURLWithPath: path).standardizedFileURL }
        if path == "~" || path.hasPrefix("~/") {
            // NSHomeDirectory exists on every platform; homeDirectoryForCurrentUser is macOS-only.
            let home = URL(fileURLWithPath: NSHomeDirectory(), isDirectory: true)
            return home.appendingPathComponent(String(path.dropFirst(2))).standardizedFileURL
        }
        let root = base ?? URL(fileURLWithPath: FileManager.default.currentDirectoryPath, isDirectory: true)
        return root.appendingPathComponent(path).standardizedFileURL
    }
}
