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
        let candidates = places(name)
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) } ?? candidates[0]
    }

    /// A resource SwiftPM copied for `target` (its `<package>_<target>.resources` folder on
    /// Linux, `.bundle` on Apple platforms), or nil when the build holds none.
    package static func resource(_ file: String, of target: String) -> URL? {
        for ext in ["resources", "bundle"] {
            for bundle in places("manashiki-models-swift_\(target).\(ext)") {
                for candidate in [bundle.appendingPathComponent(file), bundle.appendingPathComponent("Contents/Resources/\(file)")]
                where FileManager.default.fileExists(atPath: candidate.path) {
                    return candidate
                }
            }
        }
        return nil
    }

    /// Where a built product called `name` may be, in the order looked.
    private static func places(_ name: String) -> [URL] {
        var candidates: [URL] = []
        var dir = URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL.deletingLastPathComponent()
        while dir.path != "/" && !dir.path.isEmpty {
            candidates.append(dir.appendingPathComponent(name))
            dir = dir.deletingLastPathComponent()
        }
        candidates.append(Bundle.main.bundleURL.appendingPathComponent(name))
        candidates.append(Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent(name))
        candidates.append(URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent(".build/debug/\(name)"))
        return candidates
    }
}
