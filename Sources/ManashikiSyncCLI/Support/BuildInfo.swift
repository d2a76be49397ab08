import CManashikiBuildInfo
import Manashiki

/// What `manashiki-sync --version` says: the version (the SDK's, `ManashikiSDK.version`) and the
/// commit the binary was built from. The commit comes from the object scripts/build-release links
/// in (`mk_build_commit`, see docs/packaging.md); a plain `swift build` has none and says so.
package enum BuildInfo {
    /// The version, as in `ManashikiSDK.version` (also the Debian package's upstream version).
    package static var version: String { ManashikiSDK.version }

    /// The commit ("<40 hex>", "-dirty" appended when the tree had uncommitted changes), or nil
    /// when the build did not record one.
    package static var commit: String? {
        let value = String(cString: mk_build_commit())
        return value.isEmpty ? nil : value
    }

    /// The `--version` line: `manashiki-sync 0.1.0 (commit 3f2a…)`, or
    /// `manashiki-sync 0.1.0 (unknown commit: not built by scripts/build-release)`.
    package static var versionLine: String {
        guard let commit else { return "manashiki-sync \(version) (unknown commit: not built by scripts/build-release)" }
        return "manashiki-sync \(version) (commit \(commit))"
    }
}
