import Foundation
import Testing
@testable import ManashikiSync

/// docs/sync-agent.md's manifest reference ("| key | default | meaning |") against the keys the
/// validator accepts: a key the manifest may hold and the reference does not describe is a
/// reader left guessing (issue 38, 7).
@Suite("the manifest reference describes every key the validator accepts")
struct ManifestReferenceTests {
    typealias V = ManifestValidator

    /// Every key path the validator accepts (`models[].class`, `store.prune.mode`…).
    static var acceptedPaths: [String] {
        func under(_ prefix: String, _ keys: [String]) -> [String] { keys.map { "\(prefix).\($0)" } }
        var paths = ["schemaVersion", "fallback"]
        paths += under("registry", V.registryKeys.filter { $0 != "apiKey" }) + under("registry.apiKey", V.keySourceKeys)
        paths += under("store", ["directory", "concurrency", "owner"]) + under("store.prune", V.pruneKeys) + under("store.budget", V.budgetKeys)
        paths += under("device", V.deviceKeys)
        let policies = V.policyKeys.filter { !["retry", "network", "transfer"].contains($0) }
        paths += under("policies", policies) + under("policies.retry", V.retryKeys)
            + under("policies.network", V.networkKeys) + under("policies.transfer", V.transferKeys)
        paths += under("metrics", V.metricsKeys)
        paths += under("models[]", V.modelKeys.filter { $0 != "session" }) + under("models[].session", V.sessionKeys.filter { $0 != "mint" })
            + under("models[].session.mint", V.mintKeys)
        paths += under("sources[]", ArtifactSourceParser.keys)
        paths += under("trust.tuf", V.tufKeys) + under("trust.modelSigning", V.modelSigningKeys)
        // Every group the validator knows is covered above.
        #expect(Set(V.rootKeys) == ["schemaVersion", "registry", "store", "device", "policies", "metrics", "sources", "fallback", "trust", "models"])
        #expect(Set(V.trustKeys) == ["tuf", "modelSigning"])
        #expect(Set(V.storeKeys) == ["directory", "concurrency", "prune", "owner", "budget"])
        return paths
    }

    /// The reference table's rows: key → the row's text.
    static func rows() throws -> [String: String] {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let text = try String(contentsOf: root.appendingPathComponent("docs/sync-agent.md"), encoding: .utf8)
        let lines = text.components(separatedBy: "\n")
        let start = try #require(lines.firstIndex(of: "| key | default | meaning |"))
        var rows: [String: String] = [:]
        for line in lines[(start + 2)...] {
            guard line.hasPrefix("| `") else { break }
            let key = line.dropFirst(3).prefix { $0 != "`" }
            rows[String(key)] = line
        }
        return rows
    }

    /// Whether `path` has a row, or the row of a group above it names it (`"platform"` in `device`'s).
    static func isDescribed(_ path: String, in rows: [String: String]) -> Bool {
        if rows[path] != nil { return true }
        var segments = path.split(separator: ".").map(String.init)
        let leaf = segments.removeLast()
        while !segments.isEmpty {
            let group = segments.joined(separator: ".")
            for key in [group, group.hasSuffix("[]") ? String(group.dropLast(2)) : group] {
                if let row = rows[key], row.contains("\"\(leaf)\"") { return true }
            }
            segments.removeLast()
        }
        return false
    }

    @Test("each accepted key has a row, or is named in its group's row; each row is an accepted key")
    func everyKeyDescribed() throws {
        let rows = try Self.rows()
        #expect(rows.count >= 30, "\(rows.keys.sorted())")
        let paths = Self.acceptedPaths
        for path in paths {
            #expect(Self.isDescribed(path, in: rows), "docs/sync-agent.md's manifest reference does not describe \(path)")
        }
        for key in rows.keys {
            let known = paths.contains { $0 == key || $0.hasPrefix(key + ".") || $0.hasPrefix(key + "[].") }
            #expect(known, "the reference describes \(key), which the validator does not accept")
        }
    }

    @Test("the check fails on a key the reference leaves out (it can catch the regression)")
    func checkCanFail() throws {
        var rows = try Self.rows()
        rows["policies.downloadTimeoutSeconds"] = nil
        #expect(!Self.isDescribed("policies.downloadTimeoutSeconds", in: rows))
        #expect(!Self.isDescribed("device.nonexistent", in: rows))
    }
}
