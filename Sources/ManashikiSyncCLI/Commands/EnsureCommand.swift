import Foundation
import ManashikiSync

/// `manashiki-sync ensure ID…`: install the named manifest models if they are missing (on-demand
/// ones included), evicting least recently used optional and on-demand models when
/// `store.budget` needs the room, and record a use of each (`Reconciler.ensure(_:)`). Nothing
/// else is downloaded, updated or pruned. Exit codes as `sync`; 2 for an id not in the manifest.
package struct EnsureCommand: Sendable {
    /// The context.
    package let context: CommandContext
    /// The model ids.
    package let modelIds: [String]

    /// Creates the command.
    package init(context: CommandContext, modelIds: [String]) {
        self.context = context
        self.modelIds = modelIds
    }

    /// Runs it.
    package func run() async -> ExitCode {
        let manifest: Manifest
        do { manifest = try ManifestLoader.load(context.global, currentDirectory: context.console.currentDirectory) } catch {
            return context.report(error, command: "ensure")
        }
        do throws(EnsureError) { try Reconciler.check(modelIds, in: manifest) } catch {
            context.console.error(error.description)
            if context.global.json {
                JSONEventWriter(console: context.console).stopped(
                    command: "ensure", outcome: "usage-error", exit: .usage,
                    error: ErrorFields(message: error.description, hint: "list the model in the manifest's models", kind: "terminal"))
            }
            return .usage
        }
        let key: LoadedKey?
        do { key = try context.loadKeyUnlessOffline(manifest: manifest) } catch { return context.report(error, command: "ensure") }
        var run = ReconcileRun(context: context, manifest: manifest, key: key, command: "ensure", dryRun: false)
        run.ensuring = modelIds
        return await run.perform().0
    }
}
