#if os(Linux) // scripts run with bash and git here; brew itself is not run anywhere in CI
import Foundation
import Manashiki
import ManashikiTestSupport
import Testing

/// scripts/render-formula: the formula it renders is valid Ruby (`ruby -c`: the only check
/// possible without a Mac; brew has not run it), pins the commit, and a broken copy fails the
/// same check; a tag that is not the SDK's version is refused.
@Suite("Homebrew formula (scripts/render-formula)")
struct HomebrewFormulaTests {
    @Test("the rendered formula pins the commit and passes ruby -c; a broken copy does not", .requires(.ruby))
    func renders() async throws {
        let scratch = Packaging.scratch()
        let dir = scratch.url
        let formula = dir.appendingPathComponent("manashiki-sync.rb")
        let head = try await Packaging.run(["git", "rev-parse", "HEAD"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let r = try await Packaging.run(["scripts/render-formula", "v\(ManashikiSDK.version)", "--revision", "HEAD", "--out", formula.path])
        #expect(r.status == 0, "\(r.all)")
        #expect(r.stdout.contains("Ruby syntax OK"), "ruby did not check it: \(r.all)")
        let text = try String(contentsOf: formula, encoding: .utf8)
        #expect(text.contains(#"tag:      "v\#(ManashikiSDK.version)","#) && text.contains(#"revision: "\#(head)""#))
        #expect(text.contains(#"pkgshare.install "examples/launchd/com.manashiki.sync.plist""#))
        #expect(!text.contains("@"), "a placeholder was left: \(text)")
        // Every path the formula reads from the source tree exists in it.
        for path in ["scripts/build-info-object", "examples/launchd/com.manashiki.sync.plist", "examples/manifests/server.json"] {
            #expect(text.contains(path) && FileManager.default.fileExists(atPath: Packaging.root.appendingPathComponent(path).path), "\(path)")
        }

        let broken = dir.appendingPathComponent("broken.rb")
        try Data(text.replacingOccurrences(of: "  def caveats\n", with: "  def caveats(\n").utf8).write(to: broken)
        let check = try await Packaging.run(["ruby", "-c", broken.path])
        #expect(check.status != 0, "ruby -c accepted a broken formula")
    }

    @Test("a tag that is not ManashikiSDK.version is refused, naming the fix")
    func wrongTag() async throws {
        let r = try await Packaging.run(["scripts/render-formula", "v99.0.0", "--revision", "HEAD", "--out", "/dev/null"])
        #expect(r.status == 1)
        #expect(r.stderr.contains("is \(ManashikiSDK.version), not 99.0.0: bump it before tagging"), "\(r.stderr)")
    }
}
#endif
