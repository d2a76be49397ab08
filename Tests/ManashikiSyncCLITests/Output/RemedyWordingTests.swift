import Foundation
import ManashikiTestSupport
import Testing
@testable import ManashikiSyncCLI
import ManashikiSync

@Suite("RemedyWording.commandLine")
struct RemedyWordingTests {
    @Test("the library's remedies read as this command's commands and options", arguments: [
        (Remedy.sync, "`manashiki-sync sync`"),
        (.syncLocked, "`manashiki-sync sync --locked`"),
        (.verifyRepair, "`manashiki-sync verify --repair`"),
        (.lock, "`manashiki-sync lock`"),
        (.export(to: nil), "`manashiki-sync export`"),
        (.export(to: "oci://r.example/m:v1"), "`manashiki-sync export oci://r.example/m:v1`"),
        (.storeDirectory, "store.directory (or --store)"),
        (.lockFilePath, "--lock-file PATH"),
        (.bundleDirectory, "--from DIR"),
        (.offline, "--offline"),
        (.allowDeletes(4), "manashiki-sync sync --max-delete 4 (in code, Reconciler.Options.forcePrune)"),
        (.maxDelete(4), "--max-delete 4 (in code, Reconciler.Options.forcePrune)"),
    ])
    func wording(_ remedy: Remedy, _ text: String) {
        #expect(RemedyWording.commandLine.text(remedy) == text)
    }

    @Test("the command binds its wording around every command it runs")
    func boundByTheTool() async {
        let out = BufferOutput(), err = BufferOutput()
        let console = Console(out: out, err: err)
        let scratch = ScratchDirectory("remedy")
        let directory = scratch.file("absent") // an export directory that does not exist
        let lock = directory.appendingPathComponent("absent.lock.json").path
        _ = await CommandLineTool(console: console, handlesSignals: false).run(["export", directory.path, "--select", "lock", "--lock-file", lock, "--store", directory.path])
        #expect(err.text.contains("`manashiki-sync lock`"), "\(err.text)")
    }
}
