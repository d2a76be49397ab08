import Foundation
import ManashikiCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The development registry's TUF repository (`serve --tuf DIR`): signed metadata for every
/// model version it serves, target path `models/<modelId>/<version>.bin` with the artifact's
/// length and SHA-256, served at `/tuf/metadata/` on the API origin, so a manifest's
/// `trust.tuf` works against it (the quick start's signed sync).
///
/// One Ed25519 key per top-level role, threshold 1, read from `DIR/<role>.key` (64 hex
/// digits, a seed) or generated and written there (mode 0600); the root (version 1) is
/// `DIR/root.json`, written when a key was generated and reused otherwise: that is the file a
/// manifest pins. Targets, snapshot and timestamp get a new version whenever the set of
/// served versions changes (a publish, an upload) and when the timestamp is within half of its
/// one-day life from expiring; a version is one more than the last one made (kept in
/// `DIR/version`) and at least the Unix time, so versions grow across restarts too. Expiry: root and targets a year, snapshot a week, timestamp a
/// day. No consistent snapshots.
///
/// These keys sit next to the registry, online: right for development, never for a real
/// registry, whose metadata the publisher makes with python-tuf or tuf-on-ci, offline root and
/// targets keys (docs/signed-models.md).
final class RegistryTUF: Sendable {
    /// The top-level roles, in the order of the key files.
    static let roles = ["root", "targets", "snapshot", "timestamp"]

    /// The keys by role.
    let keys: [String: Ed25519SigningKey]
    /// `root.json`'s bytes (version 1).
    let root: Data
    /// `DIR/version`: the last version made, so the next run's are newer.
    let versionFile: URL
    private let published: Locked<Published>

    /// What is being served now.
    private struct Published {
        var fingerprint: [String] = []
        var version = 0
        var builtAt = Date.distantPast
        var files: [String: Data] = [:]
        /// The metadata of the refresh a TUF fault fired on, served until the next
        /// `timestamp.json` request (nil: the files above).
        var faulted: [String: Data]?
    }

    /// One artifact served, a target of the repository.
    typealias Artifact = (modelId: String, version: String, size: Int, sha256: String)

    /// The repository of `directory` (created, with new keys and a new root, as needed).
    /// - Throws: `RegistryStartError` naming the file that cannot be read or written.
    init(directory: URL, now: Date = Date()) throws {
        do { try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true) } catch {
            throw RegistryStartError("--tuf: cannot create \(directory.path): \(error.localizedDescription)")
        }
        var keys: [String: Ed25519SigningKey] = [:], generated = false
        for role in Self.roles {
            let file = directory.appendingPathComponent("\(role).key")
            if let text = try? String(contentsOf: file, encoding: .utf8) {
                guard let seed = Hex.decode(text.trimmingCharacters(in: .whitespacesAndNewlines)), let key = Ed25519SigningKey(seed: seed) else {
                    throw RegistryStartError("--tuf: \(file.path) is not an Ed25519 seed (64 hex digits); remove it to have a new key generated")
                }
                keys[role] = key
            } else {
                let key = Ed25519SigningKey.generate()
                try Self.write(Data((Hex.encode(key.seed) + "\n").utf8), to: file, mode: 0o600)
                keys[role] = key
                generated = true
            }
        }
        self.keys = keys
        versionFile = directory.appendingPathComponent("version")
        let last = (try? String(contentsOf: versionFile, encoding: .utf8)).flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        published = Locked(Published(version: last ?? 0))
        let rootFile = directory.appendingPathComponent("root.json")
        if !generated, let existing = try? Data(contentsOf: rootFile) {
            root = existing
        } else {
            root = Self.envelope(Self.rootSigned(keys: keys, now: now), by: [keys["root"]!])
            try Self.write(root, to: rootFile, mode: 0o644)
        }
    }

    /// The metadata file `name` (`1.root.json`, `root.json`, `timestamp.json`, `snapshot.json`,
    /// `targets.json`) for the served `artifacts`, nil for any other name. `fault` (a TUF
    /// fault, fired by a request of `timestamp.json`) makes that refresh's metadata faulty: a new
    /// version is used up for it, so what is served after the fault is newer than anything a
    /// client may have kept from it (an expired timestamp is kept as the rollback baseline).
    func file(_ name: String, artifacts: [Artifact], fault: RegistryFault.Kind? = nil, now: Date = Date()) -> Data? {
        if name == "1.root.json" || name == "root.json" { return root }
        let fingerprint = artifacts.map { "\($0.modelId)/\($0.version) \($0.size) \($0.sha256)" }.sorted()
        return published.withLock { p in
            if name == "timestamp.json" {
                p.faulted = nil
                if let fault, fault.isTUF {
                    let version = nextVersion(&p, now: now)
                    p.files = [:]
                    p.faulted = build(artifacts: artifacts, version: version, now: now, fault: fault)
                    return p.faulted?[name]
                }
            } else if let faulted = p.faulted {
                return faulted[name]
            }
            if p.fingerprint != fingerprint || p.files.isEmpty || now.timeIntervalSince(p.builtAt) > 12 * 3600 {
                let version = nextVersion(&p, now: now)
                p = Published(fingerprint: fingerprint, version: version, builtAt: now, files: build(artifacts: artifacts, version: version, now: now))
            }
            return p.files[name]
        }
    }

    /// One more than the last version, also an earlier run's (`DIR/version`), and at least the
    /// Unix time: versions keep growing across restarts, so a client that trusted an earlier
    /// run's metadata takes the new one. Recorded in `p` and `DIR/version`.
    private func nextVersion(_ p: inout Published, now: Date) -> Int {
        let version = max(p.version + 1, Int(now.timeIntervalSince1970))
        try? Data("\(version)\n".utf8).write(to: versionFile, options: .atomic)
        p.version = version
        return version
    }

    /// How one top-level role's metadata is made: its version, expiry and signature.
    private struct Making {
        var version: Int
        var expires: Date
        /// nil: the role's own key.
        var signer: Ed25519SigningKey?
        /// The `expires` written after signing (a `modified` signature fault).
        var expiresAfterSigning: Date?
    }

    /// Targets, snapshot and timestamp, all at `version`, one of them damaged by `fault`.
    private func build(artifacts: [Artifact], version: Int, now: Date, fault: RegistryFault.Kind? = nil) -> [String: Data] {
        var making: [RegistryFault.TUFRole: Making] = [
            .targets: Making(version: version, expires: now.addingTimeInterval(365 * 86_400)),
            .snapshot: Making(version: version, expires: now.addingTimeInterval(7 * 86_400)),
            .timestamp: Making(version: version, expires: now.addingTimeInterval(86_400)),
        ]
        switch fault {
        case .tufRollback(let role)?: making[role]?.version = 1
        case .tufExpired(let role)?: making[role]?.expires = now.addingTimeInterval(-86_400)
        case .tufMisSigned(let role, let modified)?:
            if modified { making[role]?.expiresAfterSigning = now.addingTimeInterval(2 * 365 * 86_400) } else { making[role]?.signer = .generate() }
        default: break
        }
        var targets: [String: JSONValue] = [:]
        for a in artifacts {
            targets["models/\(a.modelId)/\(a.version).bin"] = ["length": .int(a.size), "hashes": ["sha256": .string(a.sha256)]]
        }
        let t = making[.targets]!, s = making[.snapshot]!, ts = making[.timestamp]!
        return ["targets.json": sign(.targets, t, ["targets": .object(targets)]),
                "snapshot.json": sign(.snapshot, s, ["meta": ["targets.json": ["version": .int(t.version)]]]),
                "timestamp.json": sign(.timestamp, ts, ["meta": ["snapshot.json": ["version": .int(s.version)]]])]
    }

    /// `role`'s metadata with `fields`, made as `making` says.
    private func sign(_ role: RegistryFault.TUFRole, _ making: Making, _ fields: [String: JSONValue]) -> Data {
        let signed = Self.common(role.rawValue, version: making.version, expires: making.expires, fields)
        let served = making.expiresAfterSigning.map { Self.common(role.rawValue, version: making.version, expires: $0, fields) }
        return Self.envelope(signed, by: [making.signer ?? keys[role.rawValue]!], serving: served)
    }

    // MARK: Metadata

    /// TUF's key id: the SHA-256 of the key's canonical JSON, as securesystemslib computes it.
    static func keyid(_ key: Ed25519SigningKey) -> String {
        Hex.encode(DigestAlgorithm.sha256.digest(canonical(keyObject(key))))
    }

    private static func keyObject(_ key: Ed25519SigningKey) -> JSONValue {
        ["keytype": "ed25519", "scheme": "ed25519", "keyval": ["public": .string(Hex.encode(key.publicKey))]]
    }

    private static func rootSigned(keys: [String: Ed25519SigningKey], now: Date) -> JSONValue {
        var keyObjects: [String: JSONValue] = [:], roles: [String: JSONValue] = [:]
        for role in Self.roles {
            guard let key = keys[role] else { continue }
            keyObjects[keyid(key)] = keyObject(key)
            roles[role] = ["keyids": [.string(keyid(key))], "threshold": 1]
        }
        return common("root", version: 1, expires: now.addingTimeInterval(365 * 86_400),
                      ["consistent_snapshot": false, "keys": .object(keyObjects), "roles": .object(roles)])
    }

    /// `signed` with `_type`, `spec_version`, `version` and `expires` (`YYYY-MM-DDTHH:MM:SSZ`).
    static func common(_ type: String, version: Int, expires: Date, _ fields: [String: JSONValue]) -> JSONValue {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        let whole = Date(timeIntervalSince1970: expires.timeIntervalSince1970.rounded(.down))
        var signed = fields
        signed["_type"] = .string(type)
        signed["spec_version"] = "1.0.31"
        signed["version"] = .int(version)
        signed["expires"] = .string(formatter.string(from: whole))
        return .object(signed)
    }

    /// `{"signed": …, "signatures": […]}` signed by `signers`, as canonical JSON; `served`
    /// (a fault: bytes changed after signing) is written in place of `signed` when given.
    static func envelope(_ signed: JSONValue, by signers: [Ed25519SigningKey], serving served: JSONValue? = nil) -> Data {
        let payload = canonical(signed)
        let signatures = signers.map { key -> JSONValue in ["keyid": .string(keyid(key)), "sig": .string(Hex.encode(key.sign(payload)))] }
        return Data(canonical(["signed": served ?? signed, "signatures": .array(signatures)]))
    }

    /// Canonical JSON of a value built here (integers and strings only: it cannot fail).
    private static func canonical(_ value: JSONValue) -> [UInt8] {
        (try? value.canonicalBytes()) ?? []
    }

    /// Writes a new file created with `mode` (a key is never readable by others, not even
    /// for a moment).
    private static func write(_ data: Data, to file: URL, mode: mode_t) throws {
        _ = unlink(file.path)
        let fd = open(file.path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
        guard fd >= 0 else { throw RegistryStartError("--tuf: cannot create \(file.path): \(String(cString: strerror(errno)))") }
        let handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
        do { try handle.write(contentsOf: data) } catch {
            throw RegistryStartError("--tuf: cannot write \(file.path): \(error.localizedDescription)")
        }
    }
}
