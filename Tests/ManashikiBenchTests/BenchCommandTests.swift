#if os(Linux)
import Foundation
import ManashikiTestSupport
import Testing
@testable import manashiki_bench

/// The built `manashiki-bench`: help and refusals come from `BenchOptions` (no suite runs).
@Suite("manashiki-bench, the built binary")
struct BenchCommandTests {
    static let binary = BuiltProduct.url("manashiki-bench")

    @Test("--help prints the usage with every suite and every option on stdout, exit 0")
    func help() throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.binary.path), "build the manashiki-bench product first")
        let result = RunningChild.run(Self.binary, ["download", "--help"])
        #expect(result.status == 0, "\(result.all)")
        #expect(result.stdout == BenchCommand.usage + "\n")
        for suite in BenchSuites.all { #expect(result.stdout.contains("\n  \(suite.name) "), "help lacks \(suite.name)") }
        for option in ["--rounds N", "--size-mib N", "--workdir DIR", "--max-load X", "--profile DIR", "-h, --help"] {
            #expect(result.stdout.contains("\n  \(option) "), "help lacks \(option)")
        }
        #expect(result.stderr.isEmpty)
    }

    @Test("a bad option value is refused on stderr with what is wrong, exit 1, before anything runs")
    func refusal() throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.binary.path), "build the manashiki-bench product first")
        let result = RunningChild.run(Self.binary, ["download", "--rounds", "0"])
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr == "manashiki-bench: --rounds needs a whole number of at least 1, not \"0\" (`manashiki-bench --help` lists the suites and options)\n")
    }

    @Test("the network suite's child mode refuses a link it does not know, exit 1, before anything runs")
    func unknownLink() throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.binary.path), "build the manashiki-bench product first")
        let result = RunningChild.run(Self.binary, ["_network", "satellite", "--rounds", "1"])
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr == "manashiki-bench: _network needs a link: throttled, capped, perConnection or loopback\n")
    }
}
#endif
