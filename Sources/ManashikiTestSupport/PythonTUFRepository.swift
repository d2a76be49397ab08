#if os(Linux) || os(macOS) // child processes (ManashikiProcess) exist on Linux and macOS only
import Foundation

/// A TUF repository made by python-tuf (PyPI `tuf`; tests using it declare
/// `.requires(.pythonTUF, .pythonCryptography)`), the independent
/// publisher the TUF tests verify against: keys, signed metadata in `metadataDirectory`
/// (`<role>.json` and `<version>.<role>.json`, ready to serve with nginx or read as a bundle),
/// and the faults a compromised registry would serve (rolled-back versions, expired or
/// mis-signed roles, duplicated signatures, delegation cycles).
///
/// ```swift
/// let repo = try PythonTUFRepository()
/// try repo.publish(["targets": ["add": [["path": "models/tiny/1.0.0.bin", "length": 3, "sha256": digest]]]])
/// ```
package final class PythonTUFRepository: Sendable {
    /// Where keys, metadata and the script live.
    package let scratch: ScratchDirectory
    /// The published metadata.
    package var metadataDirectory: URL { scratch.url.appendingPathComponent("metadata", isDirectory: true) }
    /// The first root, to pin.
    package var initialRoot: Data { (try? Data(contentsOf: metadataDirectory.appendingPathComponent("1.root.json"))) ?? Data() }

    /// A new repository: one ed25519 key per top-level role (or `keytype`), every role version 1,
    /// expiring in `expiresDays`.
    package init(expiresDays: Int = 365, consistentSnapshot: Bool = false, keytype: String = "ed25519") throws {
        scratch = ScratchDirectory("tuf-repo")
        try Data(Self.script.utf8).write(to: scratch.file("tuf_repo.py"))
        try run("init", ["expires": expiresDays, "consistent": consistentSnapshot, "keytype": keytype])
    }

    /// `publish` (see the script's doc): new versions of roles, targets added or removed, and
    /// faults. Throws with python's output when it fails.
    package func publish(_ arguments: [String: Any] = [:]) throws { try run("publish", arguments) }

    /// `rotate`: root N+1 with new keys for `role`, signed as `arguments` say.
    package func rotate(_ arguments: [String: Any]) throws { try run("rotate", arguments) }

    /// The current root's key ids by role.
    package func keyids() throws -> [String: [String]] {
        let out = try run("keyids", [:])
        return (try JSONSerialization.jsonObject(with: Data(out.utf8)) as? [String: [String]]) ?? [:]
    }

    /// A published file's bytes (`timestamp.json`, `2.snapshot.json`).
    package func file(_ name: String) throws -> Data { try Data(contentsOf: metadataDirectory.appendingPathComponent(name)) }

    /// Replaces a published file (a repository serving what it should not).
    package func replace(_ name: String, with data: Data) throws { try data.write(to: metadataDirectory.appendingPathComponent(name)) }

    @discardableResult
    private func run(_ command: String, _ arguments: [String: Any]) throws -> String {
        let json = String(decoding: try JSONSerialization.data(withJSONObject: arguments), as: UTF8.self)
        let result = RunningChild.run(try Peer.python3.require(), [scratch.file("tuf_repo.py").path, scratch.url.path, command, json],
                                      environment: Peer.environment, path: Peer.searchPath, in: scratch.url)
        guard result.status == 0 else { throw Failure(message: "tuf_repo.py \(command) \(json): \(result.all)") }
        return result.stdout
    }

    /// python failed.
    package struct Failure: Error, CustomStringConvertible {
        /// What it said.
        package let message: String
        package var description: String { message }
    }

    static let script = #"""
"""A TUF repository made with python-tuf (PyPI `tuf`), for the tests: `python3 tuf_repo.py DIR COMMAND JSON`.

DIR/keys/<keyid>.pem holds every private key; DIR/metadata/ the published metadata, each role
as <role>.json and <version>.<role>.json. Commands:

  init      {"expires": days, "consistent": bool, "keytype": "ed25519"|"ecdsa"|"rsa"}
  publish   {"roles": [...], "targets": {"add": [{"path", "length", "sha256"}], "remove": [path]},
             "expires": {role: "YYYY-MM-DDTHH:MM:SSZ"}, "version": {role: N},
             "signWith": {role: [keyid...]}, "duplicateSignature": role,
             "delegate": [{"name", "paths", "terminating", "from"}], "bump": bool}
  rotate    {"role": role, "keys": N, "threshold": T, "signOld": [keyid...], "signNew": [keyid...]}
  keyids    {} -> prints {"role": [keyids]} of the current root

Unless "bump" is false, each published role's version is its current version + 1; snapshot
lists the current version of every targets role and timestamp the snapshot's.
"""
import copy, json, os, sys
from datetime import datetime, timedelta, timezone
from cryptography.hazmat.primitives import serialization
from securesystemslib.signer import CryptoSigner, Signature
from tuf.api.metadata import (DelegatedRole, Delegations, Metadata, MetaFile, Root, Snapshot,
                              TargetFile, Targets, Timestamp)
from tuf.api.serialization.json import JSONSerializer

D, CMD = sys.argv[1], sys.argv[2]
ARGS = json.loads(sys.argv[3]) if len(sys.argv) > 3 else {}
MD, KEYS = os.path.join(D, "metadata"), os.path.join(D, "keys")
TOP = ["root", "timestamp", "snapshot", "targets"]


def new_signer(keytype="ed25519"):
    s = {"ed25519": CryptoSigner.generate_ed25519, "ecdsa": CryptoSigner.generate_ecdsa,
         "rsa": CryptoSigner.generate_rsa}[keytype]()
    pem = s._private_key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                       serialization.NoEncryption())
    with open(os.path.join(KEYS, s.public_key.keyid + ".pem"), "wb") as f:
        f.write(pem)
    return s


def signer(keyid):
    with open(os.path.join(KEYS, keyid + ".pem"), "rb") as f:
        return CryptoSigner(serialization.load_pem_private_key(f.read(), None))


def load(role):
    return Metadata.from_file(os.path.join(MD, role + ".json"))


def write(role, md):
    data = md.to_bytes(JSONSerializer(compact=False))
    for name in (f"{role}.json", f"{md.signed.version}.{role}.json"):
        with open(os.path.join(MD, name), "wb") as f:
            f.write(data)


def sign(md, keyids, duplicate=False):
    md.signatures.clear()
    for keyid in keyids:
        md.sign(signer(keyid), append=True)
    sigs = md.to_dict()
    if duplicate:  # the same signature twice: python-tuf's API cannot, so by hand
        sigs["signatures"].append(sigs["signatures"][0])
    return sigs


def write_dict(role, version, d):
    data = json.dumps(d, indent=1).encode()
    for name in (f"{role}.json", f"{version}.{role}.json"):
        with open(os.path.join(MD, name), "wb") as f:
            f.write(data)


def delegator_keyids(role, root, targets_by_role):
    if role in TOP:
        return root.signed.roles[role].keyids
    for md in targets_by_role.values():
        d = getattr(md.signed, "delegations", None)
        if d and d.roles and role in d.roles:
            return d.roles[role].keyids
    raise SystemExit(f"nobody delegates {role}")


def init():
    os.makedirs(MD, exist_ok=True)
    os.makedirs(KEYS, exist_ok=True)
    expiry = datetime.now(timezone.utc).replace(microsecond=0) + timedelta(days=ARGS.get("expires", 365))
    root = Root(expires=expiry, consistent_snapshot=ARGS.get("consistent", False))
    for role in TOP:
        root.add_key(new_signer(ARGS.get("keytype", "ed25519")).public_key, role)
    mds = {"root": Metadata(root), "targets": Metadata(Targets(expires=expiry)),
           "snapshot": Metadata(Snapshot(expires=expiry)), "timestamp": Metadata(Timestamp(expires=expiry))}
    for role in TOP:
        md = mds[role]
        for keyid in root.roles[role].keyids:
            md.sign(signer(keyid), append=True)
        write(role, md)


def publish():
    root = load("root")
    roles = ARGS.get("roles", ["targets", "snapshot", "timestamp"])
    names = [f[:-5] for f in os.listdir(MD) if f.endswith(".json") and not f.split(".")[0].isdigit()]
    current = {n: load(n) for n in names}
    bump = ARGS.get("bump", True)
    new_roles = set()
    for change in ARGS.get("delegate", []):
        parent_name = change.get("from", "targets")
        parent = current[parent_name].signed
        if parent_name not in roles:
            roles.insert(0, parent_name)
        keys = [new_signer() for _ in range(change.get("keys", 1))]
        role = DelegatedRole(change["name"], [k.public_key.keyid for k in keys], change.get("threshold", 1),
                             change.get("terminating", False), change.get("paths", ["*"]))
        if parent.delegations is None:
            parent.delegations = Delegations({}, {})
        parent.delegations.roles[role.name] = role
        for k in keys:
            parent.delegations.keys[k.public_key.keyid] = k.public_key
        if role.name not in current:
            current[role.name] = Metadata(Targets(version=1, expires=current["targets"].signed.expires))
            if role.name not in roles:
                roles.insert(0, role.name)
            new_roles.add(role.name)
    t = ARGS.get("targets", {})
    owner = current[t.get("role", "targets")].signed
    for add in t.get("add", []):
        owner.targets[add["path"]] = TargetFile(add["length"], {"sha256": add["sha256"]}, add["path"])
    for path in t.get("remove", []):
        owner.targets.pop(path, None)
    order = [r for r in roles if r not in TOP] + [r for r in ["targets", "snapshot", "timestamp", "root"] if r in roles]
    for role in order:
        md = current[role]
        if bump and role not in new_roles:
            md.signed.version += 1
        md.signed.version = ARGS.get("version", {}).get(role, md.signed.version)
        if role in ARGS.get("expires", {}):
            md.signed.expires = datetime.strptime(ARGS["expires"][role], "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc)
        if role == "snapshot":
            for name, other in current.items():
                if name not in ("root", "snapshot", "timestamp"):
                    md.signed.meta[f"{name}.json"] = MetaFile(other.signed.version)
        if role == "timestamp":
            md.signed.snapshot_meta = MetaFile(current["snapshot"].signed.version)
        keyids = ARGS.get("signWith", {}).get(role) or delegator_keyids(role, root, current)
        write_dict(role, md.signed.version, sign(md, keyids, ARGS.get("duplicateSignature") == role))


def rotate():
    old = load("root")
    new = copy.deepcopy(old)
    new.signed.version += 1
    role = ARGS.get("role", "root")
    for keyid in list(new.signed.roles[role].keyids):
        new.signed.revoke_key(keyid, role)
    for _ in range(ARGS.get("keys", 1)):
        new.signed.add_key(new_signer().public_key, role)
    new.signed.roles[role].threshold = ARGS.get("threshold", 1)
    keyids = ARGS.get("signOld", old.signed.roles["root"].keyids) + ARGS.get("signNew", new.signed.roles["root"].keyids)
    write_dict("root", new.signed.version, sign(new, list(dict.fromkeys(keyids))))


{"init": init, "publish": publish, "rotate": rotate,
 "keyids": lambda: print(json.dumps({r: load("root").signed.roles[r].keyids for r in TOP}))}[CMD]()
"""#
}
#endif
