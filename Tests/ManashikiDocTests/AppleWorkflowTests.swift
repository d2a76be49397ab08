#if os(Linux) || os(macOS)
import Foundation
import ManashikiTestSupport
import Testing

/// `.github/workflows/apple.yml`, the Apple platforms' CI that cannot run here: checked with
/// actionlint, and against what it must cover (every platform of Package.swift, the peers of
/// the tests with their Homebrew formulas, scripts/test's PyPI pins).
@Suite("the Apple workflow (.github/workflows/apple.yml)")
struct AppleWorkflowTests {
    static let workflow = DocBlockCatalog.root.appendingPathComponent(".github/workflows/apple.yml")

    static func text() throws -> String { try String(contentsOf: workflow, encoding: .utf8) }

    /// Runs actionlint on `file`.
    static func actionlint(_ file: URL) throws -> ChildResult {
        RunningChild.run(try Peer.actionlint.require(), ["-no-color", file.path], environment: Peer.environment,
                         path: Peer.searchPath, in: DocBlockCatalog.root)
    }

    @Test("actionlint finds nothing wrong in it, and finds a broken copy wrong", .requires(.actionlint))
    func actionlintPasses() throws {
        let good = try Self.actionlint(Self.workflow)
        #expect(good.status == 0, "\(good.all)")
        let scratch = ScratchDirectory("workflow")
        defer { scratch.remove() }
        let broken = scratch.file("apple.yml")
        try Data(try Self.text().replacingOccurrences(of: "runs-on: macos-15", with: "runs-on: [macos-15").utf8).write(to: broken)
        #expect(try Self.actionlint(broken).status != 0)
    }

    @Test("it builds for every platform Package.swift declares, and Mac Catalyst")
    func everyPlatform() throws {
        let text = try Self.text()
        let manifest = try String(contentsOf: DocBlockCatalog.root.appendingPathComponent("Package.swift"), encoding: .utf8)
        for (declared, destination) in [(".macOS(", "generic/platform=macOS\n"), (".iOS(", "generic/platform=iOS Simulator\n"),
                                        (".tvOS(", "generic/platform=tvOS Simulator\n"), (".watchOS(", "generic/platform=watchOS Simulator\n"),
                                        (".visionOS(", "generic/platform=visionOS Simulator\n")] {
            #expect(manifest.contains(declared) && text.contains(destination), "\(declared) \(destination)")
        }
        #expect(text.contains("generic/platform=macOS,variant=Mac Catalyst"))
        #expect(text.contains("swift test --skip-build --skip PackagingTests") && text.contains(#"CI: "true""#))
    }

    @Test("its macOS test job installs every peer's Homebrew formula and scripts/test's PyPI pins")
    func peers() throws {
        let lines = try Self.text().components(separatedBy: "\n")
        let brew = try #require(lines.first { $0.trimmingCharacters(in: .whitespaces).hasPrefix("brew install ") })
        let formulas = Set(brew.split(separator: " ").dropFirst(2).map(String.init))
        #expect(formulas == Set(Peer.all.compactMap(\.homebrew)), "\(formulas.sorted())")
        // The PyPI pins come from scripts/test's list, read by the same sed expression run here.
        let pip = try #require(lines.first { $0.contains("pins=$(sed -n") })
        let expression = try #require(pip.components(separatedBy: "sed -n '").last?.components(separatedBy: "' scripts/test").first)
        let r = RunningChild.run(URL(fileURLWithPath: "/bin/sed"), ["-n", expression, DocBlockCatalog.root.appendingPathComponent("scripts/test").path])
        let pins = r.stdoutLines
        #expect(r.status == 0 && pins.count >= 4 && pins.allSatisfy { $0.contains("==") }, "\(r.all)")
        let script = try String(contentsOf: DocBlockCatalog.root.appendingPathComponent("scripts/test"), encoding: .utf8)
        let list = script.components(separatedBy: "pypi_packages=(\n")[1].components(separatedBy: "\n)")[0]
        let listed = list.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty && !$0.hasPrefix("#") }
            .compactMap { $0.split(separator: " ").first.map(String.init) }
        #expect(pins == listed, "\(pins) vs \(listed)")
        #expect(lines.contains { $0.contains("python3 -m pip install --user --break-system-packages $pins") })
    }
}
#endif
