import Foundation
import ManashikiTestSupport
import Testing
import ManashikiRegistry

@Suite("the API key never appears in any output")
struct SecretLeakTests {
    @Test("every command, in text and JSON, verbose, success and failure: no key in stdout or stderr")
    func neverPrinted() async throws {
        let fixture = try Fixture(models: ["alpha"], extraModelEntries: [#"{"id": "secret"}"#])
        let keyFile = fixture.directory.appendingPathComponent("key")
        try Data((Fixture.key + "\n").utf8).write(to: keyFile)
        var outputs: [ChildResult] = []
        for mode in [["--verbose"], ["--verbose", "--json"], ["--verbose", "--progress", "always"]] {
            outputs.append(try await fixture.run(["plan"] + mode))
            outputs.append(try await fixture.run(["sync"] + mode))
            outputs.append(try await fixture.run(["sync", "--api-key-file", "key"] + mode, environment: [:]))
            outputs.append(try await fixture.run(["verify", "--repair"] + mode))
            outputs.append(try await fixture.run(["status"] + mode))
        }
        fixture.registry.setFault(.status(500), endpoint: .catalog)
        outputs.append(try await fixture.run(["sync", "--verbose"]))
        #expect(outputs.contains { $0.stderr.contains("using a") })
        for output in outputs {
            #expect(!output.all.contains(Fixture.key))
            #expect(!output.all.contains("Kq7SecretKey"))
            #expect(!output.all.contains("sig="))
        }
    }

    @Test("non-TTY output of every command is free of control characters")
    func plainOutput() async throws {
        let fixture = try Fixture(models: ["alpha"], extraModelEntries: [#"{"id": "secret"}"#])
        fixture.registry.setFault(.corruptByte(), modelId: "alpha", endpoint: .storage)
        for arguments in [["plan"], ["sync"], ["sync", "--verbose"], ["verify"], ["status"], ["sync", "--json"], ["nope"]] {
            let result = try await fixture.run(arguments)
            #expect(!hasControlCharacters(result.all), "\(arguments)")
        }
    }
}
