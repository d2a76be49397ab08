import Testing
import Foundation
import Manashiki
@testable import ManashikiSync

@Suite("Manifest validation")
struct ManifestValidationTests {
    func problems(_ json: String) -> [ManifestProblem] {
        do {
            _ = try Manifest.decode(Data(json.utf8))
            Issue.record("expected the manifest to be refused")
            return []
        } catch let error as ManifestError {
            return error.problems
        } catch {
            Issue.record("unexpected error \(error)")
            return []
        }
    }

    func only(_ json: String) -> ManifestProblem? {
        let p = problems(json)
        #expect(p.count == 1, "problems: \(p)")
        return p.first
    }

    @Test("a version that is neither a version nor a range names its path and the accepted forms")
    func badVersion() {
        let p = only(#"{"schemaVersion": 1, "models": [{"id": "a"}, {"id": "b"}, {"id": "c"}, {"id": "d", "version": "1.x"}]}"#)
        #expect(p?.description == #"models[3].version: "1.x" is neither a version nor a range; use "1.2.0", "^1.2" or "latest""#)
    }

    @Test("a download timeout outside 1…604800 seconds names its path")
    func badDownloadTimeout() {
        #expect(only(#"{"schemaVersion": 1, "policies": {"downloadTimeoutSeconds": 0}, "models": [{"id": "a"}]}"#)?.path
                == "policies.downloadTimeoutSeconds")
    }

    @Test("a partial retention outside 0…8760 hours or of the wrong type names its path", arguments: ["-1", "8761", "\"7d\"", "1.5"])
    func badPartialRetention(_ value: String) {
        #expect(only(#"{"schemaVersion": 1, "policies": {"partialRetentionHours": \#(value)}, "models": [{"id": "a"}]}"#)?.path
                == "policies.partialRetentionHours")
    }

    @Test("a bandwidth limit below 1 KiB/s or of the wrong type names its path", arguments: ["0", "1023", "\"20M\"", "2048.5"])
    func badMaxBytesPerSecond(_ value: String) {
        #expect(only(#"{"schemaVersion": 1, "policies": {"maxBytesPerSecond": \#(value)}, "models": [{"id": "a"}]}"#)?.path
                == "policies.maxBytesPerSecond")
    }

    @Test("policies.transfer: a value out of range, of the wrong type, or an unknown key names its path", arguments: [
        (#"{"maxConnections": 0}"#, "policies.transfer.maxConnections"),
        (#"{"maxConnections": 65}"#, "policies.transfer.maxConnections"),
        (#"{"maxConnections": "8"}"#, "policies.transfer.maxConnections"),
        (#"{"parallelThresholdBytes": 1000}"#, "policies.transfer.parallelThresholdBytes"),
        (#"{"maxRunConnections": 257}"#, "policies.transfer.maxRunConnections"),
        (#"{"connections": 4}"#, "policies.transfer.connections"),
    ])
    func badTransfer(_ value: String, _ path: String) {
        #expect(only(#"{"schemaVersion": 1, "policies": {"transfer": \#(value)}, "models": [{"id": "a"}]}"#)?.path == path)
    }

    @Test("policies.transfer is read into the download options of a run")
    func transferPolicy() throws {
        let manifest = try Manifest.decode(Data(#"{"schemaVersion": 1, "policies": {"transfer": {"maxConnections": 4, "parallelThresholdBytes": 2097152, "maxRunConnections": 6}}, "models": [{"id": "a"}]}"#.utf8))
        #expect(manifest.policies.transfer == TransferPolicy(maxConnections: 4, parallelThresholdBytes: 2 << 20, maxRunConnections: 6))
    }

    @Test("metrics.file must be a non-empty string; unknown metrics keys are named")
    func badMetrics() {
        #expect(only(#"{"schemaVersion": 1, "metrics": {"file": ""}, "models": [{"id": "a"}]}"#)?.path == "metrics.file")
        #expect(only(#"{"schemaVersion": 1, "metrics": {"path": "x.prom"}, "models": [{"id": "a"}]}"#)?.path == "metrics.path")
    }

    @Test("store.owner must be 1 to 128 letters, digits, '.', '_' or '-'", arguments: [#""""#, #""a b""#, #""svc/a""#, "7", #""ünï""#, "\"" + String(repeating: "x", count: 129) + "\""])
    func badOwner(_ value: String) {
        let p = only(#"{"schemaVersion": 1, "store": {"owner": \#(value)}, "models": [{"id": "a"}]}"#)
        #expect(p?.path == "store.owner", "\(String(describing: p))")
    }

    @Test("store.owner is read as written")
    func owner() throws {
        let manifest = try Manifest.decode(Data(#"{"schemaVersion": 1, "store": {"owner": "inference-svc.v2_a"}, "models": [{"id": "a"}]}"#.utf8))
        #expect(manifest.store.owner == "inference-svc.v2_a")
        #expect(try Manifest.decode(Data(#"{"schemaVersion": 1, "models": [{"id": "a"}]}"#.utf8)).store.owner == nil)
    }

    @Test("a malformed range is refused")
    func badRange() {
        #expect(only(#"{"schemaVersion": 1, "models": [{"id": "a", "version": "^x"}]}"#)?.path == "models[0].version")
    }

    @Test("an unknown key is an error that suggests the nearest known key")
    func unknownKey() {
        let p = only(#"{"schemaVersion": 1, "models": [{"id": "a", "verison": "1.0.0"}]}"#)
        #expect(p?.path == "models[0].verison")
        #expect(p?.message == "unknown key")
        #expect(p?.hint == #"did you mean "version"?"#)
    }

    @Test("unknown keys are caught in every section")
    func unknownKeysEverywhere() {
        let p = problems(#"""
        {"schemaVersion": 1, "registy": {}, "store": {"concurency": 2, "prune": {"maxDelete": 1}},
         "policies": {"lifecyle": []}, "device": {"platform": "ios", "ram": 1}, "models": []}
        """#)
        #expect(p.map(\.path).sorted() == ["device.ram", "policies.lifecyle", "registy", "store.concurency", "store.prune.maxDelete"])
        #expect(p.first { $0.path == "registy" }?.hint == #"did you mean "registry"?"#)
        #expect(p.first { $0.path == "store.concurency" }?.hint == #"did you mean "concurrency"?"#)
    }

    @Test("duplicate ids are errors naming the first occurrence")
    func duplicates() {
        let p = only(#"{"schemaVersion": 1, "models": [{"id": "a"}, {"id": "b"}, {"id": "a"}]}"#)
        #expect(p?.path == "models[2].id")
        #expect(p?.message == #"duplicate id "a" (already at models[0])"#)
    }

    @Test("an invalid model id is refused with the id rules")
    func invalidId() {
        let p = only(#"{"schemaVersion": 1, "models": [{"id": "Whisper/../x"}]}"#)
        #expect(p?.path == "models[0].id")
        #expect(p?.hint?.contains("lowercase") == true)
    }

    @Test("a missing id, a bad sha256 and an unknown platform are each reported")
    func modelFieldErrors() {
        let p = problems(#"{"schemaVersion": 1, "models": [{"version": "1.0.0"}, {"id": "b", "sha256": "ABC", "platforms": ["iso"]}]}"#)
        #expect(p.map(\.path) == ["models[0].id", "models[1].sha256", "models[1].platforms[0]"])
        #expect(p[2].hint == #"did you mean "ios"?"#)
    }

    @Test("every problem is reported at once")
    func allAtOnce() {
        let p = problems(#"""
        {"schemaVersion": 1, "store": {"concurrency": 0}, "policies": {"lifecycle": ["prod"]},
         "registry": {"baseURL": "http://models.example.com"},
         "models": [{"id": "a", "version": "1.x"}, {"id": "a"}, {"id": "c", "session": {"env": "X", "file": "y"}}, {"id": "d", "session": {"mint": {}}}]}
        """#)
        #expect(p.map(\.path) == ["registry.baseURL", "store.concurrency", "policies.lifecycle[0]", "models[0].version",
                                  "models[1].id", "models[2].session", "models[3].session.mint.principalId"])
        #expect(p[1].hint == "use a value from 1 to 64")
        #expect(p[2].hint == #"did you mean "production"?"#)
    }

    @Test("a literal API key anywhere is refused without echoing it")
    func literalKey() {
        let key = "mk_live_acme_" + String(repeating: "Q", count: 24)
        let json = #"{"schemaVersion": 1, "registry": {"apiKey": "\#(key)"}, "models": [{"id": "a", "session": {"command": ["/bin/tool", "--key=\#(key)"]}}]}"#
        let p = problems(json)
        #expect(p.map(\.path) == ["models[0].session.command[1]", "registry.apiKey"])
        #expect(p.allSatisfy { !$0.description.contains(key) && !$0.description.contains("QQQQ") })
        #expect(p[1].hint?.contains(#"{"env": "MANASHIKI_API_KEY"}"#) == true)
        do {
            _ = try Manifest.decode(Data(json.utf8))
        } catch {
            #expect(!"\(error)".contains(key))
        }
    }

    @Test("a literal session token is refused")
    func literalToken() {
        let p = only(#"{"schemaVersion": 1, "models": [{"id": "a", "session": {"env": "mks_0123456789abcdef"}}]}"#)
        #expect(p?.path == "models[0].session.env")
    }

    @Test("an unknown schema version is rejected first and clearly, before anything else")
    func schemaVersion() {
        let p = only(#"{"schemaVersion": 2, "modles": 1}"#)
        #expect(p?.path == "schemaVersion")
        #expect(p?.message.contains("schema version 2 is not supported") == true)
        #expect(only(#"{"models": []}"#)?.description == #"schemaVersion: is missing; add "schemaVersion": 1"#)
        #expect(only(#"{"schemaVersion": "1", "models": []}"#)?.message == "must be an integer, not a string")
    }

    @Test("invalid JSON and a non-object document are refused with a hint")
    func notJSON() {
        #expect(only(#"{"schemaVersion": 1,"#)?.message.hasPrefix("not valid JSON: unexpected end of the document where a key") == true)
        #expect(only(#"[1, 2]"#)?.message == "the manifest must be a JSON object, not an array")
    }

    @Test("trailing commas and duplicate keys are refused with the path of the problem (Foundation would accept them)")
    func strictJSON() {
        let comma = only(#"{"schemaVersion": 1, "models": [{"id": "a",}]}"#)
        #expect(comma?.path == "models[0]")
        #expect(comma?.message == #"not valid JSON: trailing comma before "}" (line 1, column 44)"#)
        let arrayComma = only(#"{"schemaVersion": 1, "models": [{"id": "a"},]}"#)
        #expect(arrayComma?.path == "models")
        #expect(arrayComma?.message.hasPrefix(#"not valid JSON: trailing comma before "]""#) == true)
        let duplicate = only("{\"schemaVersion\": 1,\n \"models\": [{\"id\": \"a\",\n  \"id\": \"b\"}]}")
        #expect(duplicate?.path == "models[0]")
        #expect(duplicate?.message.hasPrefix(#"not valid JSON: duplicate key "id" (the first is at line 2); keep one"#) == true, "\(String(describing: duplicate))")
        #expect(only(#"{"schemaVersion": 1, "schemaVersion": 1, "models": []}"#)?.message.contains("duplicate key \"schemaVersion\"") == true)
    }

    @Test("sunset in the lifecycle policy and a wrong type are refused")
    func lifecyclePolicy() {
        let p = problems(#"{"schemaVersion": 1, "policies": {"lifecycle": ["sunset"], "checkCompatibility": "yes"}, "models": []}"#)
        #expect(p.map(\.path) == ["policies.lifecycle[0]", "policies.checkCompatibility"])
    }

    @Test("a device needs a platform and a dotted OS version")
    func device() {
        let p = problems(#"{"schemaVersion": 1, "device": {"osVersion": "seventeen"}, "models": []}"#)
        #expect(p.map(\.path).sorted() == ["device.osVersion", "device.platform"])
    }

    @Test("missing models, a bad prune mode and a string key source are reported")
    func misc() {
        let p = problems(#"{"schemaVersion": 1, "registry": {"apiKey": "$MANASHIKI_API_KEY"}, "store": {"prune": {"mode": "tracke"}}}"#)
        #expect(p.map(\.path) == ["registry.apiKey", "store.prune.mode", "models"])
        #expect(p[1].hint == #"did you mean "tracked"?"#)
    }

    @Test("the error's description lists one line per problem")
    func errorDescription() {
        let error = ManifestError(problems: [ManifestProblem(path: "a", message: "x", hint: "y"), ManifestProblem(path: "b", message: "z")])
        #expect(error.description == "The manifest has 2 problems:\n  - a: x; y\n  - b: z")
    }
}

@Suite("Manifest: policies.network")
struct NetworkPolicyManifestTests {
    @Test("policies.network maps each key to NetworkPolicy; absent keys keep the defaults")
    func parsed() throws {
        let m = try Manifest.decode(Data(#"{"schemaVersion": 1, "policies": {"network": {"cellular": false, "lowDataMode": false, "waitForConnectivity": true}}, "models": [{"id": "a"}]}"#.utf8))
        #expect(m.policies.network == NetworkPolicy(allowsCellular: false, allowsExpensive: true, allowsConstrained: false,
                                                    waitsForConnectivity: true))
        let plain = try Manifest.decode(Data(#"{"schemaVersion": 1, "models": [{"id": "a"}]}"#.utf8))
        #expect(plain.policies.network == nil)
    }

    @Test("a wrong type or an unknown key under policies.network names its path",
          arguments: [(#"{"cellular": "no"}"#, "policies.network.cellular"),
                      (#"{"wifiOnly": true}"#, "policies.network.wifiOnly"),
                      (#"true"#, "policies.network")])
    func refused(_ value: String, _ path: String) {
        let p = ManifestValidationTests().only(#"{"schemaVersion": 1, "policies": {"network": "# + value + #"}, "models": [{"id": "a"}]}"#)
        #expect(p?.path == path, "\(String(describing: p))")
    }

    @Test("a Reconciler given no transport builds a DefaultTransport with the manifest's policy")
    func appliedToTheDefaultTransport() throws {
        var m = try Manifest.decode(Data(#"{"schemaVersion": 1, "models": [{"id": "a"}]}"#.utf8))
        m.policies.network = .wifiOnly
        let reconciler = try Reconciler(manifest: m, apiKey: "mk_pub_acme_xxxxxxxxxxxxxxxxxxxxxxxx")
        let client = try #require(reconciler.registry as? ManashikiClient)
        #expect((client.transport as? DefaultTransport)?.policy == .wifiOnly)
    }
}
