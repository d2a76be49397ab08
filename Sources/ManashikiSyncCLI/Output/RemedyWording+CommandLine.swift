import Foundation
import ManashikiSync

extension RemedyWording {
    /// The `manashiki-sync` command's words for the library's remedies: its commands and
    /// options. `CommandLineTool` binds it around every command it runs.
    package static let commandLine = RemedyWording { remedy in
        switch remedy {
        case .agent: return "manashiki-sync"
        case .sync: return "`manashiki-sync sync`"
        case .syncOrVerify: return "`manashiki-sync sync` (or `verify`)"
        case .syncLocked: return "`manashiki-sync sync --locked`"
        case .verifyRepair: return "`manashiki-sync verify --repair`"
        case .lock: return "`manashiki-sync lock`"
        case .export(let destination): return "`manashiki-sync export" + (destination.map { " \($0)" } ?? "") + "`"
        case .storeDirectory: return "store.directory (or --store)"
        case .lockFilePath: return "--lock-file PATH"
        case .bundleDirectory: return "--from DIR"
        case .offline: return "--offline"
        case .includePrivate: return "--include-private"
        case .selectLock: return "`--select lock`"
        case .allowDeletes(let count): return "manashiki-sync sync --max-delete \(count) (in code, Reconciler.Options.forcePrune)"
        }
    }
}
