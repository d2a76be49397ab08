import Foundation
import Testing
import ManashikiSync

@Suite("Remedy")
struct RemedyTests {
    static let all: [Remedy] = [
        .agent, .sync, .syncOrVerify, .syncLocked, .verifyRepair, .lock, .export(to: nil), .export(to: "oci://r.example/m:v1"),
        .storeDirectory, .lockFilePath, .bundleDirectory, .offline, .includePrivate, .selectLock, .allowDeletes(3),
    ]

    @Test("the library's own wording names no command or option of manashiki-sync", arguments: all)
    func libraryWording(_ remedy: Remedy) {
        let text = RemedyWording.library.text(remedy)
        #expect(!text.isEmpty)
        #expect(!text.contains("manashiki-sync") && !text.contains("--"), "\(text)")
    }

    @Test("a message says its remedy in the wording bound around the work, the library's by default")
    func boundWording() async {
        #expect("run \(Remedy.lock)" == "run `LockResolver.resolve`")
        let shout = RemedyWording { _ in "<REMEDY>" }
        let inside = await RemedyWording.$current.withValue(shout) {
            await Task { "run \(Remedy.sync)" }.value
        }
        #expect(inside == "run <REMEDY>", "\(inside)")
    }
}
