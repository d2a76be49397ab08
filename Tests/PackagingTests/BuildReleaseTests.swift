#if os(Linux) // the release build is Linux's (macOS: the Homebrew formula)
import Foundation
import Manashiki
import ManashikiTestSupport
import Testing

/// scripts/build-release: the binary it made (dist/) runs without the toolchain and names its
/// commit; a plain build says it has none; a machine without the static runtime or libcurl's
/// development files gets an error naming what to install.
@Suite("release build (scripts/build-release)")
struct BuildReleaseTests {
    @Test("the release binary runs with the toolchain hidden, names its commit and needs only the system's libraries",
          .enabled(if: Packaging.isBuilt, Packaging.notBuilt), .enabled(if: Packaging.isRoot, "needs root (mount namespaces)"))
    func selfContained() async throws {
        let info = try Packaging.buildInfo()
        let commit = try #require(info["COMMIT"])
        #expect(info["VERSION"] == ManashikiSDK.version)
        let toolchain = try Packaging.toolchainRoot()

        let release = try await Packaging.runHiding(toolchain, [Packaging.releaseBinary.path, "--version"])
        #expect(release.status == 0, "\(release.all)")
        #expect(release.stdout == "manashiki-sync \(ManashikiSDK.version) (commit \(commit))\n")
        // The same namespace stops the toolchain-linked debug build: the hiding is real.
        let debug = try await Packaging.runHiding(toolchain, [BuiltProduct.manashikiSync.path, "--version"])
        #expect(debug.status != 0 && debug.stderr.contains("error while loading shared libraries"), "\(debug.all)")

        // What the dynamic section asks for: glibc, the C++ runtime, libcurl and libcrypto, no RUNPATH.
        let elf = try await Packaging.run(["readelf", "-d", Packaging.releaseBinary.path])
        let needed = Set(elf.stdout.split(separator: "\n").compactMap { line -> String? in
            guard line.contains("(NEEDED)"), let open = line.firstIndex(of: "["), let close = line.lastIndex(of: "]") else { return nil }
            return String(line[line.index(after: open)..<close])
        })
        #expect(needed == ["libc.so.6", "libm.so.6", "ld-linux-x86-64.so.2", "libstdc++.so.6", "libgcc_s.so.1", "libcurl.so.4", "libcrypto.so.3"],
                "\(elf.stdout)")
        #expect(!elf.stdout.contains("RUNPATH") && !elf.stdout.contains("RPATH"), "\(elf.stdout)")
    }

    @Test("a plain swift build says its commit is unknown")
    func plainBuild() async throws {
        // The temporary directory itself, not a ScratchDirectory: --version writes nothing.
        let r = try await CLIProcess.run(["--version"], in: FileManager.default.temporaryDirectory)
        #expect(r.status == 0)
        #expect(r.stdout == "manashiki-sync \(ManashikiSDK.version) (unknown commit: not built by scripts/build-release)\n")
    }

    @Test("without the static Swift runtime, build-release says so and where to get one",
          .enabled(if: Packaging.isRoot, "needs root (mount namespaces)"))
    func noStaticRuntime() async throws {
        let scratch = Packaging.scratch()
        let out = scratch.url
        let staticDir = try Packaging.toolchainRoot().appendingPathComponent("usr/lib/swift_static")
        let r = try await Packaging.runHiding(staticDir, ["scripts/build-release", "--out", out.path])
        #expect(r.status == 1, "\(r.all)")
        #expect(r.stderr.contains("the Swift toolchain has no static runtime: \(staticDir.path)/linux/libswiftCore.a is missing"), "\(r.stderr)")
        #expect(r.stderr.contains("swift.org's Linux toolchains"), "\(r.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: out.path).isEmpty)
    }

    @Test("without libcurl's development files, build-release names libcurl4-openssl-dev",
          .enabled(if: Packaging.isRoot, "needs root (mount namespaces, overlayfs)"))
    func noLibcurlDev() async throws {
        // An overlay whose upper layer whites out libcurl.so and libcurl.a: the library directory
        // as a machine with libcurl4 but without libcurl4-openssl-dev has it.
        let libdir = "/usr/lib/\(try await Packaging.run(["dpkg-architecture", "-qDEB_HOST_MULTIARCH"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines))"
        try #require(FileManager.default.fileExists(atPath: "\(libdir)/libcurl.so"), "libcurl4-openssl-dev is not installed (scripts/test installs it)")
        let scratch = Packaging.scratch()
        let layers = scratch.url
        let script = """
        set -e
        mkdir -p "$0/upper" "$0/work"
        mknod "$0/upper/libcurl.so" c 0 0
        mknod "$0/upper/libcurl.a" c 0 0
        mount -t overlay overlay -o "lowerdir=$1,upperdir=$0/upper,workdir=$0/work" "$1"
        exec scripts/build-release --out "$0/out"
        """
        let r = try await Packaging.run(["unshare", "-m", "--", "sh", "-c", script, layers.path, libdir])
        #expect(r.status == 1, "\(r.all)")
        #expect(r.stderr.contains("-lcurl: install libcurl4-openssl-dev"), "\(r.stderr)")
        #expect(!r.stderr.contains("-lcrypto"), "libcrypto's development files are there: \(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: layers.appendingPathComponent("out").path))
    }
}
#endif
