#if os(Linux) // the release build, dpkg and mount namespaces are Linux's
import Foundation
import ManashikiTestSupport
import Testing

/// Where the packaging tests find the repository, the release build (dist/, made by
/// scripts/build-release) and the toolchain, and how they run a command.
enum Packaging {
    /// The repository root.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    /// The release build's directory.
    static let dist = root.appendingPathComponent("dist")
    /// The self-contained binary.
    static let releaseBinary = dist.appendingPathComponent("manashiki-sync")

    /// Whether scripts/build-release has run (CI's .ci/run runs it before `swift test`).
    static var isBuilt: Bool {
        FileManager.default.isExecutableFile(atPath: releaseBinary.path)
            && FileManager.default.fileExists(atPath: dist.appendingPathComponent("build-info.env").path)
    }
    /// The reason a test that needs dist/ is skipped.
    static let notBuilt: Comment = "dist/manashiki-sync is not built: run scripts/build-release first (.ci/run does)"

    /// Whether the tests may install packages and mount: root (CI runs as root).
    static var isRoot: Bool { getuid() == 0 }

    /// `dist/build-info.env` as a dictionary (VERSION, COMMIT, …; the values shell-quoted, as
    /// the script wrote them, which for these is only `''` for empty).
    static func buildInfo() throws -> [String: String] {
        let text = try String(contentsOf: dist.appendingPathComponent("build-info.env"), encoding: .utf8)
        var info: [String: String] = [:]
        for line in text.split(separator: "\n") {
            guard let eq = line.firstIndex(of: "=") else { continue }
            let value = String(line[line.index(after: eq)...])
            info[String(line[..<eq])] = value == "''" ? "" : value
        }
        return info
    }

    /// The toolchain's root (`/opt/swift` here): three levels above the resolved `swift`.
    static func toolchainRoot() throws -> URL {
        let path = (ProcessInfo.processInfo.environment["PATH"] ?? "") + ":/usr/bin:/opt/swift/usr/bin"
        let dir = try #require(path.split(separator: ":").map(String.init).first {
            FileManager.default.isExecutableFile(atPath: "\($0)/swift")
        }, "no swift on PATH")
        return URL(fileURLWithPath: "\(dir)/swift").resolvingSymlinksInPath()
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    /// A fresh scratch directory (world-readable, so the service's user can read what is in it).
    static func scratch() -> ScratchDirectory { ScratchDirectory("manashiki-packaging", permissions: 0o755) }

    /// Runs `arguments[0]` (a path, relative to `directory`, or a name looked up on the system PATH) to the end, in the repository root
    /// unless told otherwise.
    static func run(_ arguments: [String], environment: [String: String] = [:], in directory: URL = root,
                    timeout: Double = 600) async throws -> ChildResult {
        let path = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:" + ((try? toolchainRoot().path).map { "\($0)/usr/bin" } ?? "")
        let name = arguments[0]
        let executable = name.hasPrefix("/") ? URL(fileURLWithPath: name)
            : name.contains("/") ? directory.appendingPathComponent(name)
            : try #require(path.split(separator: ":").map { URL(fileURLWithPath: "\($0)/\(name)") }
                .first { FileManager.default.isExecutableFile(atPath: $0.path) }, "\(name) is not installed")
        return try await RunningChild.start(executable, Array(arguments.dropFirst()), environment: environment, path: path, in: directory)
            .finish(timeout: timeout)
    }

    /// Runs `arguments` in a new mount namespace where an empty directory hides `hidden`
    /// (`unshare -m`, `mount --bind`): what a machine without that directory sees.
    static func runHiding(_ hidden: URL, _ arguments: [String], environment: [String: String] = [:],
                          in directory: URL = root) async throws -> ChildResult {
        let empty = scratch()
        return try await run(["unshare", "-m", "--", "sh", "-c", #"mount --bind "$0" "$1" && shift && exec "$@""#,
                              empty.url.path, hidden.path] + arguments, environment: environment, in: directory)
    }
}
#endif
