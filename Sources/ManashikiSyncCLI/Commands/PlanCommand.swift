import Foundation
import ManashikiSync

/// `manashiki-sync plan`: what a sync would do, changing nothing. Exit 0 in sync, 10 changes
/// pending, 1 when a sync could not fully succeed.
package struct PlanCommand: Sendable {
    /// The context.
    package let context: CommandContext

    /// Creates the command.
    package init(context: CommandContext) { self.context = context }

    /// Runs it.
    package func run() async -> ExitCode {
        let manifest: Manifest
        do { manifest = try ManifestLoader.load(context.global, currentDirectory: context.console.currentDirectory) } catch {
            return context.report(error, command: "plan")
        }
        let key: LoadedKey?
        do { key = try context.loadKeyUnlessOffline(manifest: manifest) } catch { return context.report(error, command: "plan") }
        return await ReconcileRun(context: context, manifest: manifest, key: key, command: "plan", dryRun: true).perform().0
    }
}
