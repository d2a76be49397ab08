import Foundation

/// The package's built executables, found next to the test bundle: the one place tests look
/// for `manashiki-sync`, `manashiki-registry` or `manashiki-bench`.
package enum BuiltProduct {
    /// The built `manashiki-sync`.
    package static let manashikiSync = url("manashiki-sync")
    /// The built `manashiki-registry`.
    package static let manashikiRegistry = url("manashiki-registry")

    /// The executable `name` in the build directory: looked for in every directory above the
    /// test bundle (`.build/debug`, `.build/<triple>/debug`, an `.xctest` bundle's
    /// `Contents/MacOS`), next to `Bundle.main`, then in `./.build/debug`. When none is there,
    /// the first place looked (running it then fails with "no such file").
    package static func url(_ name: String) -> URL {
        var candidates: [URL] = []
        var dir = URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL.deletingLastPathComponent()
        while dir.path != "/" && !dir.path.isEmpty {
            candidates.append(dir.appendingPathComponent(name))
            dir = dir.deletingLastPathComponent()
        }
        candidates.append(Bundle.main.bundleURL.appendingPathComponent(name))
        candidates.append(Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent(name))
        candidates.append(URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent(".build/debug/\(name)"))
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) } ?? candidates[0]
    }
}
