#if os(Linux) || os(macOS) // child processes (ManashikiProcess) exist on Linux and macOS only
import Foundation
import Testing
import ManashikiTestSupport

@Suite("Peer: finding the programs tests start, skipping or failing without them")
struct PeerTests {
    /// A peer no machine has.
    static let absent = Peer(.command("manashiki-no-such-peer"), from: .debian("manashiki-no-such-package"))
    static let absentModule = Peer(.pythonModule("manashiki_no_such_module"), from: .pypi("manashiki-no-such-module"))

    @Test("a missing peer is not installed, and require() throws naming its package and the command that installs it")
    func missing() throws {
        #expect(!Self.absent.isInstalled && !Self.absentModule.isInstalled)
        let error = try #require(throws: PeerMissing.self) { try Self.absent.require() }
        #expect(error.description == "needs manashiki-no-such-peer (the Debian package manashiki-no-such-package), not installed here: "
                + "scripts/test installs it, or apt-get install manashiki-no-such-package")
    }

    @Test("peers from both registries: the text names each and gives both install commands")
    func bothRegistries() {
        let text = PeerMissing(peers: [Self.absent, Self.absentModule]).description
        #expect(text.contains("the Python module manashiki_no_such_module (the PyPI package manashiki-no-such-module)"), "\(text)")
        #expect(text.hasSuffix("apt-get install manashiki-no-such-package and python3 -m pip install manashiki-no-such-module"), "\(text)")
    }

    @Test("nothing missing runs; something missing skips, or fails under CI with the same text", arguments: [false, true])
    func decision(missingIsFailure: Bool) throws {
        #expect(try PeerMissing(peers: []).shouldRun(missingIsFailure: missingIsFailure))
        let missing = PeerMissing(peers: [Self.absent])
        if missingIsFailure {
            let error = try #require(throws: PeerMissing.self) { _ = try missing.shouldRun(missingIsFailure: true) }
            #expect(error.description == missing.description)
        } else {
            #expect(try !missing.shouldRun(missingIsFailure: false))
        }
    }

    @Test("an installed program is found on the search path, a Python module through python3", .requires(.python3))
    func installed() throws {
        let sh = Peer(.command("sh"), from: .debian("dash"))
        #expect(try sh.require().lastPathComponent == "sh")
        let json = Peer(.pythonModule("json"), from: .debian("python3"))
        #expect(json.executable?.lastPathComponent.hasPrefix("python3") == true, "\(String(describing: json.executable))")
    }
}
#endif
