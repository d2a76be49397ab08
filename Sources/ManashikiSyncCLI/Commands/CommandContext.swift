import Foundation
import ManashikiSync

/// What every command needs: the console and the global options, with helpers to report the
/// errors they share (manifest, key) in the current output mode.
package struct CommandContext: Sendable {
    /// Where output goes.
    package let console: Console
    /// The global options.
    package let global: GlobalOptions

    /// Creates a context.
    package init(console: Console, global: GlobalOptions) {
        self.console = console
        self.global = global
    }

    /// Whether the live display is used.
    package var live: Bool {
        guard !global.json else { return false }
        switch global.progress {
        case .always: return true
        case .never: return false
        case .auto: return console.outIsTerminal
        }
    }

    /// The renderers for a plan or sync run in the current mode (always with the stderr
    /// problem reporter). Without `jsonSummary` the JSON writer leaves the `summary` line to the
    /// caller (`verify --repair` ends with its own).
    package func renderer(dryRun: Bool, jsonSummary: Bool = true) -> any RunRenderer {
        let problems = ProblemReporter(console: console, showWarnings: global.verbosity > .quiet)
        if global.json {
            let writer = JSONEventWriter(console: console)
            return RendererGroup([jsonSummary ? writer : EventsOnlyRenderer(base: writer), problems])
        }
        if live { return RendererGroup([ProgressRenderer(console: console, verbosity: global.verbosity, dryRun: dryRun), problems]) }
        return RendererGroup([PlainRenderer(console: console, verbosity: global.verbosity, dryRun: dryRun), problems])
    }

    /// Prints a manifest problem (one stderr line each; a JSON summary with `--json`).
    package func report(_ error: ConfigurationError, command: String) -> ExitCode {
        error.lines.forEach(console.error)
        if global.json {
            JSONEventWriter(console: console).stopped(
                command: command, outcome: "manifest-error", exit: .usage,
                error: ErrorFields(message: error.lines.first ?? "invalid manifest", hint: "fix the manifest", kind: "terminal"),
                problems: error.problems)
        }
        return .usage
    }

    /// Prints a key problem (one stderr line; a JSON summary with `--json`).
    package func report(_ error: KeyError, command: String) -> ExitCode {
        console.error(error.message)
        if global.json {
            JSONEventWriter(console: console).stopped(
                command: command, outcome: "key-error", exit: .usage, error: ErrorFields(message: error.message, hint: nil, kind: "terminal"))
        }
        return .usage
    }

    /// The key, or nil with `--offline` (no request is made, so none is needed).
    package func loadKeyUnlessOffline(manifest: Manifest) throws(KeyError) -> LoadedKey? {
        global.offline ? nil : try loadKey(manifest: manifest)
    }

    /// The file's permission bits in octal (`0644`) when its group or others may read it, else nil.
    static func otherReadableMode(_ file: URL) -> String? {
        guard let mode = (try? FileManager.default.attributesOfItem(atPath: file.path))?[.posixPermissions] as? Int,
              mode & 0o044 != 0 else { return nil }
        return "0" + String(mode & 0o7777, radix: 8)
    }

    /// Loads the key, hiding it (and the manifest's session tokens from the environment) from
    /// every later output; in verbose mode says where it came from.
    package func loadKey(manifest: Manifest) throws(KeyError) -> LoadedKey {
        let key = try KeyLoader.load(apiKeyFile: global.apiKeyFile, environment: console.environment, manifest: manifest,
                                     currentDirectory: console.currentDirectory)
        for output in [console.out, console.err] {
            output.hide(key.value)
            for spec in manifest.models {
                if case .environment(let name)? = spec.session, let token = console.environment[name] { output.hide(token) }
            }
        }
        if global.verbosity == .verbose && !global.json { console.err.write("manashiki-sync: using a \(key)\n") }
        if let file = key.file, global.verbosity > .quiet, let mode = Self.otherReadableMode(file) {
            console.warning("the API key file \(file.path) can be read by other users (mode \(mode)): `chmod 600 \(file.path)`")
        }
        return key
    }
}
