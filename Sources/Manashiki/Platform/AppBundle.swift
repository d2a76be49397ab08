import Foundation
#if canImport(os)
import os
#endif

/// Whether this process is an app (or app extension) and how the SDK warns inside one.
///
/// | platform | an app is | the warning goes to |
/// |---|---|---|
/// | Apple platforms | a process whose main bundle is a `.app` or `.appex` | the unified log (`Logger`, subsystem `com.manashiki.sdk`, category `keys`), level fault: shown in Xcode's console |
/// | Linux, others | never (servers and command-line tools) | standard error (only reached in tests) |
enum AppBundle {
    /// Whether the main bundle is an app or an app extension.
    static var isApp: Bool {
        #if canImport(Darwin)
        let ext = Bundle.main.bundleURL.pathExtension
        return ext == "app" || ext == "appex"
        #else
        return false
        #endif
    }

    /// Writes `message` where a developer running the app sees it.
    static func warn(_ message: String) {
        #if canImport(os)
        Logger(subsystem: "com.manashiki.sdk", category: "keys").fault("\(message, privacy: .public)")
        #else
        FileHandle.standardError.write(Data("manashiki: warning: \(message)\n".utf8))
        #endif
    }
}
