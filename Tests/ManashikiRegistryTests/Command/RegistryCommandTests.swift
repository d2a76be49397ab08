import Foundation
import ManashikiTestSupport
import ManashikiCore
import Manashiki
import Testing
@testable import ManashikiRegistry

@Suite("manashiki-registry command line")
struct RegistryCommandTests {
    @Test("serve options parse, with storage port defaulting to port + 1 (or 0)")
    func parsesServe() throws {
        let invocation = try RegistryCommand.parse(["serve", "dir", "--port", "9000", "--url-ttl", "60", "--ready-file", "/tmp/r.json"])
        guard case .serve(let dir, let options) = invocation else {
            Issue.record("expected serve, got \(invocation)")
            return
        }
        #expect(dir == "dir")
        #expect(options.urlTTL == 60)
        #expect(options.readyFile == "/tmp/r.json")
        let configuration = RegistryCommand.configuration(options)
        #expect(configuration.apiPort == 9000)
        #expect(configuration.storagePort == 9001)
        guard case .serve(_, let zero) = try RegistryCommand.parse(["serve", "d", "--port", "0"]) else { return }
        #expect(RegistryCommand.configuration(zero).storagePort == 0)
        #expect(try RegistryCommand.parse(["serve"]) == .serve(directory: nil, configuration: .init()))
        #expect(try RegistryCommand.parse(["check"]) == .check(directory: nil))
        #expect(try RegistryCommand.parse(["--help"]) == .help)
        #expect(try RegistryCommand.parse(["generate", "--size", "8", "--seed", "1", "-o", "x"]) == .generate(size: 8, seed: 1, output: "x"))
    }

    @Test("bad command lines are usage errors; a non-loopback host needs --allow-remote")
    func rejects() throws {
        #expect(throws: UsageError.self) { try RegistryCommand.parse([]) }
        #expect(throws: UsageError.self) { try RegistryCommand.parse(["serve", "d", "--port", "x"]) }
        #expect(throws: UsageError.self) { try RegistryCommand.parse(["serve", "d", "--bogus"]) }
        #expect(throws: UsageError.self) { try RegistryCommand.parse(["serve", "d", "--host", "0.0.0.0"]) }
        guard case .serve(_, let options) = try RegistryCommand.parse(["serve", "d", "--host", "0.0.0.0", "--allow-remote"]) else {
            Issue.record("expected serve")
            return
        }
        #expect(options.allowRemote)
    }

    @Test("the built-in demo catalog is examples/registry/catalog.json, byte for byte, and loads")
    func demoIsTheExample() throws {
        let file = try String(contentsOf: Fixture.examplesDirectory.appendingPathComponent("catalog.json"), encoding: .utf8)
        #expect(RegistryCatalog.demoText + "\n" == file, "edit both: Sources/ManashikiRegistry/Catalog/RegistryCatalog+Demo.swift holds a copy")
        let demo = RegistryCatalog.demo
        #expect(demo.models.map(\.modelId) == ["whisper-tiny-en", "whisper-medical-ja-fp16", "distil-small-en", "legacy-asr-v1", "kws-hey-manashiki"])
        #expect(demo.keys.count == 4 && demo.pending.count == 1)
    }

    @Test("a catalog directory that does not exist (examples/registry, run from another package) names the built-in catalog as the fix")
    func missingDirectory() throws {
        let error = try #require(throws: CatalogFileError.self) { try RegistryCatalog.load(directory: URL(fileURLWithPath: "/nonexistent/examples/registry")) }
        #expect(error.description == """
            /nonexistent/examples/registry: no such file or directory
              Fix: pass a directory containing catalog.json, or no directory at all for the built-in demo catalog \
            (the same as examples/registry, which is not in a package that depends on this one): \
            `swift run manashiki-registry serve --port 8080`
            """)
    }

    #if os(Linux) || os(macOS) // child processes (ManashikiProcess) exist on Linux and macOS only
    @Test("from a directory without examples/: serve without a directory serves the built-in demo; a missing directory exits 65 naming the fix")
    func builtInFromAnotherPackage() async throws {
        let binary = BuiltProduct.manashikiRegistry
        let scratch = ScratchDirectory("another-package")
        defer { scratch.remove() }
        let missing = RunningChild.run(binary, ["serve", "examples/registry", "--port", "0"], in: scratch.url)
        #expect(missing.status == 65)
        #expect(missing.stderr.contains("examples/registry: no such file or directory\n  Fix: pass a directory containing catalog.json, or no directory at all"), "\(missing.stderr)")
        let child = try RunningChild.start(binary, ["serve", "--port", "0"], in: scratch.url)
        let ready = await child.waitForOutput(timeout: 30) { $0.contains("MANASHIKI_REGISTRY_READY") }
        child.send(SIGTERM)
        let result = await child.finish(timeout: 30)
        #expect(ready && result.status == 0, "\(result.all)")
        #expect(result.stdout.contains("manashiki-registry: serving the built-in demo catalog (5 models, 4 keys)"), "\(result.stdout)")
    }

    @Test("the executable serves the demo on --port 0, writes --ready-file, and stops on SIGTERM", .requires(.curl))
    func executableServes() throws {
        let binary = BuiltProduct.manashikiRegistry
        try #require(FileManager.default.isExecutableFile(atPath: binary.path), "build the manashiki-registry product first")
        let scratch = ScratchDirectory("registry-command")
        let ready = scratch.file("ready.json")
        let child = try RunningChild.start(binary, ["serve", Fixture.examplesDirectory.path, "--port", "0", "--ready-file", ready.path], in: scratch.url)
        defer { if child.isRunning { child.send(SIGKILL); _ = child.waitForExit() } }
        var info: [String: Any]?
        for _ in 0..<200 where info == nil { // bounded wait for readiness
            if let data = FileManager.default.contents(atPath: ready.path) { info = JSON.object(data) } else { usleep(50_000) }
        }
        let api = try #require(info?["apiBaseURL"] as? String)
        let storage = try #require(info?["storageBaseURL"] as? String)
        #expect(api.hasPrefix("http://127.0.0.1:"))
        #expect(storage != api)
        let models = try Curl.run(["-H", "X-API-Key: mk_pub_demo_0123456789abcdefghij", api + "/api/models"])
        #expect(models.status == 200)
        child.send(SIGTERM)
        let result = child.waitForExit()
        #expect(result.status == 0)
        #expect(!result.signalled)
        let output = result.stdout
        #expect(output.contains("MANASHIKI_REGISTRY_READY {"))
        #expect(output.contains(api))
        #expect(!FileManager.default.fileExists(atPath: ready.path))
    }

    @Test("check reports a bad catalog with file, JSON path and fix, exiting non-zero")
    func checkBadCatalog() throws {
        let binary = BuiltProduct.manashikiRegistry
        try #require(FileManager.default.isExecutableFile(atPath: binary.path), "build the manashiki-registry product first")
        let dir = try CatalogFileParserTests.directory(#"{"models": [{"modelId": "a", "version": "1", "artifact": {"generated": {"size": -1, "seed": 1}}}]}"#)
        let result = RunningChild.run(binary, ["check", dir.url.path])
        let message = result.stderr
        #expect(result.status == 65)
        #expect(message.contains("catalog.json"))
        #expect(message.contains("$.models[0].artifact.generated.size"))
        #expect(message.contains("Fix:"))
    }
    #endif
}
