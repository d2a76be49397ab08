import Foundation

/// The package's root folder, found from this file's path (tests that read the package's own
/// files: the portability check, the privacy manifests).
enum PackageRoot {
    static let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
}
