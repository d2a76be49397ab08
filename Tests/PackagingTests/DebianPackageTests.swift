#if os(Linux) // dpkg, systemd-analyze and mount namespaces are Linux's
import Foundation
import ManashikiRegistry
import ManashikiTestSupport
import Testing

/// scripts/package-deb and the package it builds, installed with the real dpkg on this machine
/// (CI's, as root): lintian, the files and the user, the units (`systemd-analyze verify`), the
/// service's own command run as its user with the toolchain hidden against the development
/// registry, then `dpkg -r` and `dpkg -P`. The suite installs and purges `manashiki-sync`.
@Suite("Debian package (scripts/package-deb, dpkg)", .serialized,
       .enabled(if: Packaging.isBuilt, Packaging.notBuilt), .enabled(if: Packaging.isRoot, "needs root (dpkg -i, mount namespaces)"),
       .requires(.lintian, .systemdAnalyze))
struct DebianPackageTests {
    /// The package, built once for the suite (lintian reads the whole 60 MB binary).
    static let built = Task { try await buildPackage() }
    static let unitDir = "/usr/lib/systemd/system"
    static let units = ["\(unitDir)/manashiki-sync.service", "\(unitDir)/manashiki-sync.timer"]
    static let demoKey = "mk_pub_demo_0123456789abcdefghij"

    /// Where the package is built: kept as long as the test process, like `built`.
    static let output = Packaging.scratch()

    /// Runs scripts/package-deb into `output`; returns the .deb and the script's output.
    static func buildPackage() async throws -> (deb: URL, output: String) {
        let out = output.url
        let r = try await Packaging.run(["scripts/package-deb", "--out", out.path], timeout: 900)
        try #require(r.status == 0, "package-deb: \(r.all)")
        let name = try #require(try FileManager.default.contentsOfDirectory(atPath: out.path).first(where: { $0.hasSuffix(".deb") }))
        return (out.appendingPathComponent(name), r.all)
    }

    /// dpkg, under the lock the team's apt-get calls take (dpkg refuses to run beside apt).
    static func dpkg(_ arguments: [String]) async throws -> ChildResult {
        try await Packaging.run(["flock", "/tmp/apt.lock", "dpkg"] + arguments)
    }

    static func exists(_ path: String) -> Bool { FileManager.default.fileExists(atPath: path) }

    @Test("package-deb builds a lintian-clean package whose Depends come from the binary's libraries")
    func control() async throws {
        let (deb, output) = try await Self.built.value
        #expect(output.contains("lintian: no errors or warnings"), "\(output)")
        // The README's command: its glob names this file, and apt takes it (a simulation: nothing installed).
        #expect(output.contains("  install it: sudo apt install \(deb.path)\n"), "\(output)")
        #expect(deb.lastPathComponent.hasPrefix("manashiki-sync_") && deb.lastPathComponent.hasSuffix("_amd64.deb"), "\(deb.lastPathComponent)")
        let apt = try await Packaging.run(["apt-get", "install", "--simulate", "--no-install-recommends", deb.path])
        #expect(apt.status == 0 && !apt.all.contains("Unsupported file"), "\(apt.all)")
        let field = { (name: String) async throws -> String in
            try await Packaging.run(["dpkg-deb", "--field", deb.path, name]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let depends = try await field("Depends")
        for package in ["libc6 (>= ", "libcurl4 (>= ", "libssl3 (>= ", "libstdc++6 (>= ", "adduser", "ca-certificates"] {
            #expect(depends.contains(package), "Depends: \(depends)")
        }
        let info = try Packaging.buildInfo()
        let version = try await field("Version")
        #expect(version.hasPrefix(try #require(info["VERSION"])), "Version: \(version)")
        let listing = try await Packaging.run(["dpkg-deb", "--contents", deb.path]).stdout
        for path in ["./usr/bin/manashiki-sync", "./usr/share/man/man1/manashiki-sync.1.gz", "./etc/manashiki/manashiki.json",
                     "./usr/share/doc/manashiki-sync/copyright"] + Self.units.map({ ".\($0)" }) {
            #expect(listing.contains(" \(path)\n"), "\(path) is not in the package:\n\(listing)")
        }
        #expect(!listing.contains("/usr/local"))
    }

    @Test("dpkg -i installs it enabling nothing; the service's command syncs as its user without the toolchain; dpkg -r and -P leave what policy says")
    func lifecycle() async throws {
        let (deb, _) = try await Self.built.value
        if try await Packaging.run(["dpkg-query", "-W", "manashiki-sync"]).status == 0 {
            _ = try await Self.dpkg(["--purge", "manashiki-sync"])   // a crashed earlier run's leftover
        }
        do {
            try await install(deb)
            let registryURL = try await runService()
            try await reinstall(deb, keeping: registryURL)
            try await remove()
            try await purge()
        } catch {
            Issue.record(error)
        }
        _ = try? await Self.dpkg(["--purge", "manashiki-sync"])
        try? FileManager.default.removeItem(atPath: "/etc/manashiki")
    }

    func install(_ deb: URL) async throws {
        let r = try await Self.dpkg(["--install", deb.path])
        try #require(r.status == 0, "dpkg -i: \(r.all)")
        #expect(FileManager.default.isExecutableFile(atPath: "/usr/bin/manashiki-sync"))
        #expect(FileManager.default.contents(atPath: "/etc/manashiki/manashiki.json")
                == FileManager.default.contents(atPath: Packaging.root.appendingPathComponent("examples/manifests/server.json").path))
        let conffiles = try await Packaging.run(["dpkg-query", "-W", "-f=${Conffiles}", "manashiki-sync"]).stdout
        #expect(conffiles.contains("/etc/manashiki/manashiki.json"), "\(conffiles)")
        let user = try await Packaging.run(["getent", "passwd", "manashiki"]).stdout
        #expect(user.hasSuffix(":/var/lib/manashiki:/usr/sbin/nologin\n"), "\(user)")
        let state = try FileManager.default.attributesOfItem(atPath: "/var/lib/manashiki")
        #expect(state[.ownerAccountName] as? String == "manashiki")
        #expect((state[.posixPermissions] as? NSNumber)?.intValue == 0o750)
        // Enabled by nothing: no symlink to either unit anywhere under /etc/systemd.
        let links = try await Packaging.run(["find", "/etc/systemd", "-name", "manashiki-sync.*"]).stdout
        #expect(links.isEmpty, "enabled: \(links)")

        // systemd-analyze exits 0 for what it only warns about: no output at all is the bar.
        let verify = try await Packaging.run(["systemd-analyze", "verify"] + Self.units, environment: ["SYSTEMD_LOG_COLOR": "0"])
        #expect(verify.status == 0 && verify.all.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty, "systemd-analyze: \(verify.all)")
    }

    /// The installed unit's User= and ExecStart=, run as systemd would start them (without its
    /// sandboxing), in a mount namespace where the toolchain is an empty directory, against the
    /// development registry put into the installed manifest as an operator would.
    func runService() async throws -> String {
        let registry = try DevelopmentRegistry.start(catalogDirectory: Packaging.root.appendingPathComponent("examples/registry"))
        defer { registry.stop() }
        let manifest = try String(contentsOfFile: "/etc/manashiki/manashiki.json", encoding: .utf8)
            .replacingOccurrences(of: "https://models.manashiki.com", with: registry.apiBaseURL.absoluteString)
        try manifest.write(toFile: "/etc/manashiki/manashiki.json", atomically: true, encoding: .utf8)
        try #require(FileManager.default.createFile(atPath: "/etc/manashiki/api-key", contents: Data(Self.demoKey.utf8),
                                       attributes: [.posixPermissions: 0o600, .ownerAccountName: "manashiki"]))

        let unit = try String(contentsOfFile: Self.units[0], encoding: .utf8).split(separator: "\n")
        let user = try #require(unit.first { $0.hasPrefix("User=") }).dropFirst("User=".count)
        let exec = try #require(unit.first { $0.hasPrefix("ExecStart=") }).dropFirst("ExecStart=".count)
        let command = exec.split(separator: " ").map(String.init)
        #expect(command.first == "/usr/bin/manashiki-sync")
        let run = try await Packaging.runHiding(try Packaging.toolchainRoot(),
                                                ["setpriv", "--reuid=\(user)", "--regid=\(user)", "--init-groups"] + command,
                                                in: URL(fileURLWithPath: "/"))
        #expect(run.status == 0, "\(command.joined(separator: " ")): \(run.all)")
        let model = "/var/lib/manashiki/models/whisper-tiny-en.bin"
        let bytes = try #require(FileManager.default.contents(atPath: model), "nothing installed: \(run.all)")
        #expect(bytes == registry.artifactBytes(modelId: "whisper-tiny-en"))
        #expect(try FileManager.default.attributesOfItem(atPath: model)[.ownerAccountName] as? String == "manashiki")
        #expect(!run.all.contains(Self.demoKey))
        return registry.apiBaseURL.absoluteString
    }

    /// dpkg -i over the installed package (an upgrade to the same version): the operator's edit
    /// of the conffile, the key, the models and the user all survive.
    func reinstall(_ deb: URL, keeping edit: String) async throws {
        let r = try await Self.dpkg(["--install", deb.path])
        try #require(r.status == 0, "dpkg -i again: \(r.all)")
        let manifest = try String(contentsOfFile: "/etc/manashiki/manashiki.json", encoding: .utf8)
        #expect(manifest.contains(edit), "the edited conffile was replaced: \(manifest)")
        for kept in ["/etc/manashiki/api-key", "/var/lib/manashiki/models/whisper-tiny-en.bin"] {
            #expect(Self.exists(kept), "\(kept) went with the upgrade")
        }
    }

    /// dpkg -r: the program, units and man page go; the (edited) conffile, the state and the user stay.
    func remove() async throws {
        let r = try await Self.dpkg(["--remove", "manashiki-sync"])
        try #require(r.status == 0, "dpkg -r: \(r.all)")
        for gone in ["/usr/bin/manashiki-sync", "/usr/share/man/man1/manashiki-sync.1.gz", "/usr/share/doc/manashiki-sync"] + Self.units {
            #expect(!Self.exists(gone), "\(gone) is still there after dpkg -r")
        }
        for kept in ["/etc/manashiki/manashiki.json", "/var/lib/manashiki/models/whisper-tiny-en.bin"] {
            #expect(Self.exists(kept), "\(kept) went with dpkg -r")
        }
        let status = try await Packaging.run(["dpkg-query", "-W", "-f=${Status}", "manashiki-sync"]).stdout
        #expect(status == "deinstall ok config-files")
        #expect(try await Packaging.run(["getent", "passwd", "manashiki"]).status == 0)
    }

    /// dpkg -P: the conffile and the state go; the operator's key file (and so /etc/manashiki)
    /// and the system user stay.
    func purge() async throws {
        let r = try await Self.dpkg(["--purge", "manashiki-sync"])
        try #require(r.status == 0, "dpkg -P: \(r.all)")
        #expect(!Self.exists("/var/lib/manashiki"), "dpkg -P left /var/lib/manashiki")
        #expect(try FileManager.default.contentsOfDirectory(atPath: "/etc/manashiki") == ["api-key"])
        #expect(try await Packaging.run(["dpkg-query", "-W", "manashiki-sync"]).status != 0, "dpkg still knows the package")
        #expect(try await Packaging.run(["getent", "passwd", "manashiki"]).status == 0, "the system user went")
    }
}
#endif
