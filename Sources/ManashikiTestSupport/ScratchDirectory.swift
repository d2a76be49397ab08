import Foundation

/// A fresh directory of its own under the system's temporary directory, removed with
/// everything in it when the last reference goes (or at `remove()`): the test targets' one
/// scratch-directory helper. Stores, manifests, bundles, certificates, a server's workdir.
///
/// ```swift
/// let scratch = ScratchDirectory("manifest-tls")
/// try Data("{}".utf8).write(to: scratch.file("manashiki.json"))
/// ```
package final class ScratchDirectory: Sendable {
    /// The directory (standardized; it exists until `remove()` or the last reference goes).
    package let url: URL

    /// Creates `<tmp>/<prefix>-<random>`. `permissions` (e.g. `0o755`, for a directory another
    /// user must read) applies to it alone; by default the umask decides.
    package init(_ prefix: String = "manashiki-tests", permissions: Int? = nil) {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("\(prefix)-\(UUID().uuidString.prefix(8))", isDirectory: true)
            .standardizedFileURL
        let attributes: [FileAttributeKey: Any]? = permissions.map { [.posixPermissions: $0] }
        do {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true, attributes: attributes)
        } catch {
            // Nothing a test checks can work without it: say where, not a later "no such file".
            preconditionFailure("cannot create the scratch directory \(url.path): \(error)")
        }
    }

    deinit { remove() }

    /// `url/name` (not created).
    package func file(_ name: String) -> URL { url.appendingPathComponent(name) }

    /// `url/name`, created as a directory (with its parents).
    package func directory(_ name: String) throws -> URL {
        let directory = url.appendingPathComponent(name, isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    /// Removes it now, with everything in it (again at deinit: a no-op then).
    package func remove() { try? FileManager.default.removeItem(at: url) }
}
