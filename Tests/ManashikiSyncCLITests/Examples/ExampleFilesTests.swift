#if os(Linux) || os(macOS) // child processes (ManashikiProcess) exist on Linux and macOS only
import Foundation
import ManashikiTestSupport
import Testing

/// The files in `examples/` checked by the tools that will read them: systemd-analyze,
/// kubernetes-validate, Python's plistlib, check-jsonschema and the agent itself, and a
/// crontab(5) reading of the cron line. Every check is also fed a broken copy, which it must
/// reject: a check that cannot fail proves nothing.
@Suite("examples (real validators)")
struct ExampleFilesTests {
    /// The repository's `examples/` directory.
    static let examples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("examples")
    /// Where the README tells operators to install the command; every example runs it from there.
    static let installPath = "/usr/local/bin/manashiki-sync"

    static func read(_ path: String) throws -> String { try String(contentsOf: examples.appendingPathComponent(path), encoding: .utf8) }

    /// Runs the built agent with `arguments` plus `--help`: exit 0 and the command's help means
    /// the agent's own parser accepts every option (an unknown or misspelled one exits 2).
    static func agentAccepts(_ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) async throws -> Bool {
        guard let command = arguments.first else { return false }
        let scratch = ScratchDirectory("manashiki-examples")
        let dir = scratch.url
        let result = try await CLIProcess.run(arguments + ["--help"], in: dir)
        return result.status == 0 && result.stdout.hasPrefix("manashiki-sync \(command) —")
    }

    // MARK: systemd

    /// The service and timer copied into `dir`, with ExecStart's binary pointed at the built one
    /// (`systemd-analyze verify` checks that the program exists and is executable).
    static func systemdUnits(in dir: URL, edit: (String) -> String = { $0 }) throws -> [URL] {
        var urls: [URL] = []
        for name in ["manashiki-sync.service", "manashiki-sync.timer"] {
            let text = try read("systemd/\(name)").replacingOccurrences(of: installPath, with: CLIProcess.binary.path)
            let url = dir.appendingPathComponent(name)
            try Data(edit(text).utf8).write(to: url)
            urls.append(url)
        }
        return urls
    }

    /// `systemd-analyze verify`: it exits 0 for many problems it only warns about ("Unknown
    /// key", "Failed to parse"), so a unit passes only with exit 0 and no output at all.
    static func verifyUnits(_ urls: [URL]) async throws -> ExternalTool.Result {
        var r = try await ExternalTool.run("systemd-analyze", ["verify"] + urls.map(\.path))
        if r.status == 0 && !r.output.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty { r.status = 1 }
        return r
    }

    @Test("the systemd service and timer pass systemd-analyze verify; broken copies do not", .requires(.systemdAnalyze))
    func systemd() async throws {
        let scratch = ScratchDirectory("manashiki-examples")
        let dir = scratch.url
        let good = try await Self.verifyUnits(try Self.systemdUnits(in: dir))
        #expect(good.succeeded, "systemd-analyze: \(good.output)")

        let breakages: [(String, (String) -> String)] = [
            ("a misspelled key", { $0.replacingOccurrences(of: "SuccessExitStatus=", with: "SucessExitStatus=") }),
            ("an invalid service type", { $0.replacingOccurrences(of: "Type=oneshot", with: "Type=oneshoot") }),
            ("an invalid timer value", { $0.replacingOccurrences(of: "OnUnitActiveSec=6h", with: "OnUnitActiveSec=6 hourz") }),
            ("a program that does not exist", { $0.replacingOccurrences(of: CLIProcess.binary.path, with: "/nonexistent/manashiki-sync") }),
        ]
        for (what, edit) in breakages {
            let broken = dir.appendingPathComponent("broken-\(UUID().uuidString.prefix(4))")
            try FileManager.default.createDirectory(at: broken, withIntermediateDirectories: true)
            let r = try await Self.verifyUnits(try Self.systemdUnits(in: broken, edit: edit))
            #expect(!r.succeeded, "systemd-analyze accepted \(what)")
        }
    }

    @Test("the service runs the installed agent with options it accepts, and a partial failure fails the unit")
    func systemdCommand() async throws {
        let service = try Self.read("systemd/manashiki-sync.service")
        let exec = try #require(service.split(separator: "\n").first { $0.hasPrefix("ExecStart=") })
        let argv = exec.dropFirst(10).split(separator: " ").map(String.init)
        #expect(argv.first == Self.installPath)
        #expect(try await Self.agentAccepts(Array(argv.dropFirst())))
        #expect(!(try await Self.agentAccepts(["sync", "--manifset", "/etc/manashiki/manashiki.json"])))
        // Exit 3 (partial failure) must show in `systemctl --failed` and OnFailure= (docs/sync-agent.md,
        // "Running from timers"); only 75 (another run holds the lock) and 143 (a `systemctl stop`
        // or shutdown during a run, which keeps the partial for the next run) count as success.
        let success = try #require(service.split(separator: "\n").first { $0.hasPrefix("SuccessExitStatus=") })
        #expect(success.split(separator: "=")[1].split(separator: " ") == ["75", "143"])
    }

    // MARK: Kubernetes

    /// `kubernetes-validate --strict` (unknown fields are errors) against a pinned Kubernetes version.
    static func validateKubernetes(_ urls: [URL]) async throws -> ExternalTool.Result {
        try await ExternalTool.run("kubernetes-validate", ["--strict", "--kubernetes-version", "1.29.0"] + urls.map(\.path))
    }

    @Test("the Kubernetes manifests pass kubernetes-validate --strict; broken copies do not", .requires(.kubernetesValidate), arguments: ["cronjob.yaml", "init-container.yaml"])
    func kubernetes(_ name: String) async throws {
        let url = Self.examples.appendingPathComponent("kubernetes/\(name)")
        let good = try await Self.validateKubernetes([url])
        #expect(good.succeeded, "kubernetes-validate: \(good.output)")

        let scratch = ScratchDirectory("manashiki-examples")
        let dir = scratch.url
        let text = try String(contentsOf: url, encoding: .utf8)
        for (what, broken) in [("a misspelled field", text.replacingOccurrences(of: "volumeMounts:", with: "volumeMount:")),
                               ("a wrong type", text.replacingOccurrences(of: "runAsUser: 10001", with: "runAsUser: \"ten\""))] {
            #expect(broken != text)
            let copy = dir.appendingPathComponent(name)
            try Data(broken.utf8).write(to: copy)
            #expect(!(try await Self.validateKubernetes([copy])).succeeded, "kubernetes-validate accepted \(what)")
        }
        // The container's arguments are ones the agent accepts.
        let args = try #require(text.split(separator: "\n").first { $0.contains("args: [") })
        let json = args[args.firstIndex(of: "[")!...]
        let argv = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String])
        #expect(try await Self.agentAccepts(argv))
    }

    /// The first container of `name` (the init container of the Deployment, the CronJob's
    /// container) and its pod spec, read with PyYAML as the API server would.
    static func kubernetesContainer(_ name: String) async throws -> (pod: [String: Any], container: [String: Any]) {
        let script = "import json, sys, yaml; print(json.dumps(yaml.safe_load(open(sys.argv[1]))))"
        let r = try await ExternalTool.run("python3", ["-c", script, examples.appendingPathComponent("kubernetes/\(name)").path])
        #expect(r.succeeded, "PyYAML: \(r.output)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(r.output.utf8)) as? [String: Any])
        let spec = try #require(object["spec"] as? [String: Any])
        let template = (spec["jobTemplate"] as? [String: Any]).flatMap { ($0["spec"] as? [String: Any])?["template"] } ?? spec["template"]
        let pod = try #require((template as? [String: Any])?["spec"] as? [String: Any])
        let container = try #require(((pod["initContainers"] ?? pod["containers"]) as? [[String: Any]])?.first)
        return (pod, container)
    }

    @Test("each Kubernetes example, run as the kubelet would (its mounts on scratch directories, the Secret's key ending in a newline as a key file does), installs every model and exits 0", .requires(.python3),
          arguments: ["cronjob.yaml", "init-container.yaml"])
    func kubernetesRun(_ name: String) async throws {
        let (pod, container) = try await Self.kubernetesContainer(name)
        let fixture = try Fixture()
        let volumes = (pod["volumes"] as? [[String: Any]]) ?? []
        var mounts: [String: URL] = [:]
        let keyText = Fixture.key + "\n" // `kubectl create secret --from-file=key=./key` of a file written by echo
        for mount in (container["volumeMounts"] as? [[String: Any]]) ?? [] {
            let volumeName = try #require(mount["name"] as? String), path = try #require(mount["mountPath"] as? String)
            let volume = try #require(volumes.first { $0["name"] as? String == volumeName })
            let dir = fixture.directory.appendingPathComponent("volume-\(volumeName)")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            if volume["configMap"] != nil {
                try FileManager.default.copyItem(at: fixture.manifestURL, to: dir.appendingPathComponent("manashiki.json"))
            } else if let secret = volume["secret"] as? [String: Any] {
                #expect(secret["secretName"] as? String == "manashiki-api-key")
                try Data(keyText.utf8).write(to: dir.appendingPathComponent("key"))
            }
            mounts[path] = dir
        }
        var environment: [String: String] = [:]
        for variable in (container["env"] as? [[String: Any]]) ?? [] {
            let name = try #require(variable["name"] as? String)
            if let ref = (variable["valueFrom"] as? [String: Any])?["secretKeyRef"] as? [String: Any] {
                #expect(ref["name"] as? String == "manashiki-api-key")
                environment[name] = keyText
            } else {
                environment[name] = variable["value"] as? String
            }
        }
        let args = try #require(container["args"] as? [String]).map { arg in
            for (path, dir) in mounts where arg == path || arg.hasPrefix(path + "/") { return dir.path + arg.dropFirst(path.count) }
            return arg
        }
        let result = try await CLIProcess.run(args, environment: environment, in: fixture.directory)
        #expect(result.status == 0, "\(result.all)")
        let store = try #require(mounts["/models"])
        for id in ["alpha", "beta"] {
            #expect(FileManager.default.fileExists(atPath: store.appendingPathComponent("\(id).bin").path), "\(id) not installed")
        }
        #expect(!result.all.contains(Fixture.key))
    }

    // MARK: launchd

    /// The plist parsed by Python's plistlib, as JSON.
    static func parsePlist(_ url: URL) async throws -> (ExternalTool.Result, [String: Any]?) {
        let script = "import json, plistlib, sys; print(json.dumps(plistlib.load(open(sys.argv[1], 'rb'))))"
        let r = try await ExternalTool.run("python3", ["-c", script, url.path])
        guard r.succeeded else { return (r, nil) }
        return (r, try JSONSerialization.jsonObject(with: Data(r.output.utf8)) as? [String: Any])
    }

    @Test("the launchd plist parses as a property list with the agent's arguments; a broken copy does not parse", .requires(.python3))
    func launchd() async throws {
        let url = Self.examples.appendingPathComponent("launchd/com.manashiki.sync.plist")
        let (result, plist) = try await Self.parsePlist(url)
        #expect(result.succeeded, "plistlib: \(result.output)")
        let dict = try #require(plist)
        #expect(dict["Label"] as? String == "com.manashiki.sync")
        #expect(dict["StartInterval"] as? Int == 21600)
        #expect(dict["RunAtLoad"] as? Bool == true)
        let argv = try #require(dict["ProgramArguments"] as? [String])
        #expect(argv.first == Self.installPath)
        #expect(try await Self.agentAccepts(Array(argv.dropFirst())))

        let scratch = ScratchDirectory("manashiki-examples")
        let dir = scratch.url
        let text = try String(contentsOf: url, encoding: .utf8)
        for broken in [text.replacingOccurrences(of: "</dict>", with: ""), text.replacingOccurrences(of: "<integer>21600</integer>", with: "<integer>6h</integer>")] {
            let copy = dir.appendingPathComponent("broken.plist")
            try Data(broken.utf8).write(to: copy)
            #expect(!(try await Self.parsePlist(copy)).0.succeeded)
        }
    }

    // MARK: Manifests

    static let manifests = ["app-restore.json", "fleet.json", "image-provisioning.json", "oci-registry.json", "phone.json", "server.json"]

    static func checkSchema(_ urls: [URL]) async throws -> ExternalTool.Result {
        try await ExternalTool.run("check-jsonschema", ["--schemafile", examples.appendingPathComponent("manifest.schema.json").path] + urls.map(\.path))
    }

    @Test("the manifest schema is a valid JSON Schema (check-jsonschema --check-metaschema)", .requires(.checkJSONSchema))
    func schemaIsValid() async throws {
        let r = try await ExternalTool.run("check-jsonschema", ["--check-metaschema", Self.examples.appendingPathComponent("manifest.schema.json").path])
        #expect(r.succeeded, "check-jsonschema: \(r.output)")
    }

    @Test("every example manifest passes the schema and the agent; broken copies fail both", .requires(.checkJSONSchema), arguments: manifests)
    func manifest(_ name: String) async throws {
        let url = Self.examples.appendingPathComponent("manifests/\(name)")
        let schema = try await Self.checkSchema([url])
        #expect(schema.succeeded, "check-jsonschema: \(schema.output)")
        let scratch = ScratchDirectory("manashiki-examples")
        let dir = scratch.url
        // The agent reads it offline (`status` needs no key); --store keeps it out of /var/lib.
        let agent = try await CLIProcess.run(["status", "--manifest", url.path, "--store", dir.appendingPathComponent("store").path, "--json"], in: dir)
        #expect(agent.status == 0, "\(agent.all)")

        let text = try String(contentsOf: url, encoding: .utf8)
        let broken = [
            ("an unknown key", text.replacingOccurrences(of: #""schemaVersion": 1,"#, with: #""schemaVersion": 1, "modles": [],"#)),
            ("concurrency 0", text.replacingOccurrences(of: #""concurrency": "#, with: #""concurrency": 0, "x": "#)),
            ("schema version 2", text.replacingOccurrences(of: #""schemaVersion": 1"#, with: #""schemaVersion": 2"#)),
        ]
        for (what, bad) in broken {
            #expect(bad != text, "\(what): the edit did not apply to \(name)")
            let copy = dir.appendingPathComponent(name)
            try Data(bad.utf8).write(to: copy)
            #expect(!(try await Self.checkSchema([copy])).succeeded, "check-jsonschema accepted \(what) in \(name)")
            let refused = try await CLIProcess.run(["status", "--manifest", copy.path, "--store", dir.appendingPathComponent("store").path], in: dir)
            #expect(refused.status == 2, "the agent accepted \(what) in \(name)")
        }
    }

    // MARK: cron

    @Test("the crontab lines have five valid fields and run the installed agent with options it accepts")
    func crontab() async throws {
        let text = try Self.read("cron/crontab")
        // Entries, and the commented alternative ("# 17 */6 …").
        let lines = text.split(separator: "\n").map { $0.hasPrefix("# ") ? String($0.dropFirst(2)) : String($0) }
            .filter { $0.first?.isNumber == true || $0.hasPrefix("*") }
        #expect(lines.count == 2)
        for line in lines {
            let entry = try #require(CrontabEntry(line), "not a crontab(5) entry: \(line)")
            // `sleep $(shuf -i 0-600 -n 1); <agent> …`: the jitter first, then the agent.
            #expect(entry.argv.prefix(6) == ["sleep", "$(shuf", "-i", "0-600", "-n", "1);"], "no start jitter: \(line)")
            #expect(!line.contains("%"), "cron turns % into a newline")
            // The shell cron uses parses it (and rejects a broken copy).
            #expect(try await ExternalTool.run("sh", ["-n", "-c", entry.command]).succeeded, "\(entry.command)")
            #expect(!(try await ExternalTool.run("sh", ["-n", "-c", entry.command.replacingOccurrences(of: "1);", with: "1;")])).succeeded)
            let agent = entry.argv.drop { $0 != Self.installPath }
            #expect(agent.first == Self.installPath)
            #expect(try await Self.agentAccepts(Array(agent.dropFirst())), "\(line)")
        }
    }

    @Test("the crontab reader rejects broken schedules", arguments: [
        "61 */6 * * * /usr/local/bin/manashiki-sync sync", "17 */6 * * /usr/local/bin/manashiki-sync", "17 24 * * * /x",
        "17 */0 * * * /x", "17 */6 0 * * /x", "17 */6 * 13 * /x", "17 */6 * * 8 /x", "17 5-3 * * * /x", "17 6, * * * /x", "@hourly",
    ])
    func crontabRejects(_ line: String) {
        #expect(CrontabEntry(line) == nil)
    }
}
#endif
