import Foundation
import ManashikiCore

/// Reads a catalog file: wire-format records plus an `artifact` per model, keys, pending
/// versions and faults. Every problem is reported as a `CatalogFileError`.
enum CatalogFileParser {
    /// The catalog file's name inside a catalog directory.
    static let fileName = "catalog.json"

    private static let modelFields: Set<String> = ["modelId", "version", "size", "sha256", "card", "lineage", "format",
                                                   "compatibility", "lifecycle", "visibility", "metrics", "artifact",
                                                   "organization", "extraFields"]

    /// Loads `directory/catalog.json`, or `directory` when it is a file.
    static func load(directory: URL) throws(CatalogFileError) -> RegistryCatalog {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory) else {
            throw CatalogFileError(file: directory.path, jsonPath: "", problem: "no such file or directory",
                                   fix: "pass a directory containing \(fileName), or no directory at all for the built-in demo catalog "
                                       + "(the same as examples/registry, which is not in a package that depends on this one): "
                                       + "`swift run manashiki-registry serve --port 8080`")
        }
        let file = isDirectory.boolValue ? directory.appendingPathComponent(fileName) : directory
        guard let data = FileManager.default.contents(atPath: file.path) else {
            throw CatalogFileError(file: file.path, jsonPath: "", problem: "the file cannot be read (missing or not readable)",
                                   fix: "create \(fileName) in the catalog directory (`manashiki-registry serve` without a directory serves "
                                       + "the built-in demo catalog; copy examples/registry/\(fileName) to start your own)")
        }
        // Strict first: a trailing comma or a duplicate key (which readers resolve differently)
        // is refused with its path; the tree is then walked as Foundation objects.
        do { _ = try JSONValue.parse(data) } catch {
            throw CatalogFileError(file: file.path, jsonPath: error.path.isEmpty ? "$" : "$.\(error.path)",
                                   problem: "not valid JSON: \(error.message) (line \(error.line), column \(error.column))",
                                   fix: "remove the trailing comma or the duplicate key, or fix the quote or bracket at that place")
        }
        let root: Any
        do {
            root = try JSONSerialization.jsonObject(with: data)
        } catch {
            throw CatalogFileError(file: file.path, jsonPath: "$", problem: "not valid JSON (\(jsonErrorDetail(error)))",
                                   fix: "check for trailing commas, comments or unquoted keys; `python3 -m json.tool \(file.lastPathComponent)` points at the line")
        }
        return try parse(root, file: file)
    }

    private static func jsonErrorDetail(_ error: any Error) -> String {
        let ns = error as NSError
        return (ns.userInfo[NSDebugDescriptionErrorKey] as? String) ?? ns.localizedDescription
    }

    /// Parses the document `root` of `file`.
    static func parse(_ root: Any, file: URL) throws(CatalogFileError) -> RegistryCatalog {
        let base = file.deletingLastPathComponent()
        func fail(_ path: String, _ problem: String, _ fix: String) -> CatalogFileError {
            CatalogFileError(file: file.path, jsonPath: path, problem: problem, fix: fix)
        }
        guard let doc = root as? [String: Any] else {
            throw fail("$", "the document must be a JSON object", #"start from {"keys": [...], "models": [...]}"#)
        }
        for key in doc.keys where !["keys", "models", "pending", "faults", "$comment"].contains(key) {
            throw fail("$.\(key)", "unknown top-level field", "the known fields are keys, models, pending, faults and $comment")
        }
        var catalog = RegistryCatalog()
        for (i, value) in try array(doc["keys"], "$.keys", fail).enumerated() {
            let path = "$.keys[\(i)]"
            guard let o = value as? [String: Any], let secret = o["secret"] as? String else {
                throw fail(path, "a key must be an object with a \"secret\" string", #"write {"secret": "mk_pub_acme_0123456789abcdefghij"}"#)
            }
            let organization = o["organization"] as? String
            guard let key = RegistryKey(validating: secret, organization: organization) else {
                throw fail(path + ".secret", "\"\(secret)\" matches none of the key patterns of CONTRACT §1",
                           "use mk_pub_<org>_<20+ letters/digits>, mk_live_…, mk_svc_… or sk_live_<20+ letters/digits>")
            }
            catalog.keys.append(key)
        }
        var seen = Set<String>()
        for (i, value) in try array(doc["models"], "$.models", fail).enumerated() {
            let model = try parseModel(value, path: "$.models[\(i)]", base: base, fail: fail)
            guard seen.insert(model.modelId).inserted else {
                throw fail("$.models[\(i)].modelId", "duplicate model id \"\(model.modelId)\"", "give each model a distinct modelId")
            }
            catalog.models.append(model)
        }
        for (i, value) in try array(doc["pending"], "$.pending", fail).enumerated() {
            let path = "$.pending[\(i)]"
            guard let o = value as? [String: Any] else { throw fail(path, "must be an object", #"write {"modelId": …, "version": …, "artifact": …}"#) }
            let id = try modelId(o["modelId"], path: path + ".modelId", fail: fail)
            guard let version = o["version"] as? String, !version.isEmpty else {
                throw fail(path + ".version", "a non-empty version string is required", #"write e.g. "version": "1.1.0""#)
            }
            let artifact = try parseArtifact(o["artifact"], path: path + ".artifact", base: base, fail: fail)
            catalog.pending.append(RegistryPendingVersion(modelId: id, version: version, artifact: artifact))
        }
        for (i, value) in try array(doc["faults"], "$.faults", fail).enumerated() {
            do {
                catalog.faults.append(try FaultJSON.rule(value, path: "$.faults[\(i)]"))
            } catch {
                throw fail(error.path, error.problem, error.fix)
            }
        }
        return catalog
    }

    private static func array(_ value: Any?, _ path: String, _ fail: (String, String, String) -> CatalogFileError) throws(CatalogFileError) -> [Any] {
        guard let value, !(value is NSNull) else { return [] }
        guard let a = value as? [Any] else { throw fail(path, "must be an array", "write [ … ] or remove the field") }
        return a
    }

    private static func modelId(_ value: Any?, path: String, fail: (String, String, String) -> CatalogFileError) throws(CatalogFileError) -> String {
        guard let id = value as? String, RegistryModel.isValidModelId(id) else {
            throw fail(path, "missing or invalid model id \(FaultJSON.describe(value))",
                       "use lowercase letters, digits, '.', '_' and '-', starting and ending with a letter or digit (CONTRACT §2)")
        }
        return id
    }

    private static func parseModel(_ value: Any, path: String, base: URL,
                                   fail: (String, String, String) -> CatalogFileError) throws(CatalogFileError) -> RegistryModel {
        guard let o = value as? [String: Any] else {
            throw fail(path, "a model must be a JSON object", "write a wire record (CONTRACT §3) plus an \"artifact\" field")
        }
        for key in o.keys where !modelFields.contains(key) {
            throw fail("\(path).\(key)", "unknown field \"\(key)\"",
                       "fix the spelling, or put deliberate extra fields under \"extraFields\"; known fields: " + modelFields.sorted().joined(separator: ", "))
        }
        let id = try modelId(o["modelId"], path: path + ".modelId", fail: fail)
        guard let version = o["version"] as? String, !version.isEmpty else {
            throw fail(path + ".version", "a non-empty version string is required", #"write e.g. "version": "1.0.0""#)
        }
        let artifact = try parseArtifact(o["artifact"], path: path + ".artifact", base: base, fail: fail)
        var model = RegistryModel(modelId: id, version: version, artifact: artifact)
        if let s = o["size"], !(s is NSNull) {
            guard let n = JSONBody.int(s), n >= 0 else { throw fail(path + ".size", "size must be a non-negative integer", "remove it: the size is computed from the artifact") }
            if case .generated(let size, _) = artifact, size != n {
                throw fail(path + ".size", "size \(n) differs from the generated artifact's \(size)", "remove \"size\" (it is computed) or make them equal")
            }
        }
        if let s = o["sha256"], !(s is NSNull) {
            guard let hex = s as? String, Hex.isSHA256(hex) else {
                throw fail(path + ".sha256", "sha256 must be 64 lowercase hex characters", "remove it: the digest is computed from the artifact")
            }
        }
        if let v = o["visibility"], !(v is NSNull) {
            guard let s = v as? String, s == "public" || s == "private" else {
                throw fail(path + ".visibility", "visibility must be \"public\" or \"private\", not \(FaultJSON.describe(v))", #"write "visibility": "public""#)
            }
            model.visibility = s
        }
        try parseCompatibility(o["compatibility"], path: path, into: &model, fail: fail)
        try parseLifecycle(o["lifecycle"], path: path, into: &model, fail: fail)
        model.card = try json(o["card"], path + ".card", fail)
        model.lineage = try json(o["lineage"], path + ".lineage", fail)
        model.format = try json(o["format"], path + ".format", fail)
        model.metrics = try json(o["metrics"], path + ".metrics", fail)
        if let org = o["organization"] as? String { model.organization = org }
        if let extra = o["extraFields"], !(extra is NSNull) {
            guard let e = JSONValue(foundation: extra), case .object(let fields) = e else {
                throw fail(path + ".extraFields", "must be an object", #"write e.g. {"futureField": 1}"#)
            }
            model.extraFields = fields
        }
        return model
    }

    /// `compatibility`: platforms, min_os, min_ram_mb, min_disk_mb.
    private static func parseCompatibility(_ c: Any?, path: String, into model: inout RegistryModel,
                                           fail: (String, String, String) -> CatalogFileError) throws(CatalogFileError) {
        guard let c, !(c is NSNull) else { return }
        guard let compat = c as? [String: Any] else { throw fail(path + ".compatibility", "must be an object", #"write {"platforms": ["ios"]}"#) }
        if let p = compat["platforms"], !(p is NSNull) {
            guard let platforms = p as? [String] else {
                throw fail(path + ".compatibility.platforms", "must be an array of strings", #"write e.g. ["ios", "macos"]"#)
            }
            for (j, name) in platforms.enumerated() where !RegistryModel.knownPlatforms.contains(name) {
                throw fail("\(path).compatibility.platforms[\(j)]", "unknown platform \"\(name)\"",
                           "use one of: " + RegistryModel.knownPlatforms.sorted().joined(separator: ", "))
            }
            model.platforms = platforms
        }
        if let m = compat["min_os"], !(m is NSNull) {
            guard let s = m as? String, !s.isEmpty, s.split(separator: ".", omittingEmptySubsequences: false).allSatisfy({ Int($0) != nil }) else {
                throw fail(path + ".compatibility.min_os", "min_os must be a dotted version string", #"write e.g. "min_os": "17.0""#)
            }
            model.minOS = s
        }
        for (key, assign) in [("min_ram_mb", { (m: inout RegistryModel, n: Int) in m.minRAMMB = n }),
                              ("min_disk_mb", { (m: inout RegistryModel, n: Int) in m.minDiskMB = n })] {
            if let raw = compat[key], !(raw is NSNull) {
                guard let n = JSONBody.int(raw), n >= 0 else { throw fail("\(path).compatibility.\(key)", "\(key) must be a non-negative integer", "write megabytes, e.g. 4096") }
                assign(&model, n)
            }
        }
    }

    /// `lifecycle`: status and sunsetAt.
    private static func parseLifecycle(_ l: Any?, path: String, into model: inout RegistryModel,
                                       fail: (String, String, String) -> CatalogFileError) throws(CatalogFileError) {
        guard let l, !(l is NSNull) else { return }
        guard let lifecycle = l as? [String: Any] else { throw fail(path + ".lifecycle", "must be an object", #"write {"status": "production", "sunsetAt": null}"#) }
        if let s = lifecycle["status"], !(s is NSNull) {
            guard let status = s as? String, !status.isEmpty else { throw fail(path + ".lifecycle.status", "status must be a string", #"write e.g. "status": "production""#) }
            model.status = status
        }
        if let s = lifecycle["sunsetAt"], !(s is NSNull) {
            guard let sunset = s as? String, HTTPDate.parseISO8601(sunset) != nil else {
                throw fail(path + ".lifecycle.sunsetAt", "sunsetAt must be an ISO 8601 date-time or null", #"write e.g. "sunsetAt": "2026-12-31T00:00:00Z""#)
            }
            model.sunsetAt = sunset
        }
    }

    private static func json(_ value: Any?, _ path: String, _ fail: (String, String, String) -> CatalogFileError) throws(CatalogFileError) -> JSONValue? {
        guard let value, !(value is NSNull) else { return nil }
        guard let v = JSONValue(foundation: value), case .object = v else { throw fail(path, "must be an object or null", "write { … } or null") }
        return v
    }

    private static func parseArtifact(_ value: Any?, path: String, base: URL,
                                      fail: (String, String, String) -> CatalogFileError) throws(CatalogFileError) -> RegistryArtifact {
        let fix = #"write "artifact": {"generated": {"size": 1048576, "seed": 1}} or "artifact": {"file": "artifacts/model.bin"}"#
        guard let o = value as? [String: Any] else { throw fail(path, "missing artifact", fix) }
        if let g = o["generated"] as? [String: Any] {
            guard let size = JSONBody.int(g["size"]), size >= 0 else {
                throw fail(path + ".generated.size", "size must be a non-negative integer, not \(FaultJSON.describe(g["size"]))", #"write the size in bytes, e.g. "size": 1048576"#)
            }
            guard let seed = JSONBody.int(g["seed"]), seed >= 0 else {
                throw fail(path + ".generated.seed", "seed must be a non-negative integer, not \(FaultJSON.describe(g["seed"]))", #"write e.g. "seed": 1"#)
            }
            return .generated(size: size, seed: UInt64(seed))
        }
        if let f = o["file"] as? String {
            let url = f.hasPrefix("/") ? URL(fileURLWithPath: f) : base.appendingPathComponent(f)
            guard FileManager.default.isReadableFile(atPath: url.path) else {
                throw fail(path + ".file", "artifact file \(url.path) does not exist or is not readable", "create the file, fix the path (relative to the catalog file), or use a generated artifact")
            }
            return .file(url)
        }
        throw fail(path, "the artifact must have \"generated\" or \"file\"", fix)
    }
}
