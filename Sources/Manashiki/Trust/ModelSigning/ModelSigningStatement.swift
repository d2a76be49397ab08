import Foundation
import ManashikiCore

/// The in-toto Statement v1 inside a model_signing envelope, with the predicate
/// `https://model_signing/signature/v1.0`, read only after the envelope's signature verified.
///
/// A single file signed with `model_signing sign … <file>` reads:
/// ```json
/// {"_type": "https://in-toto.io/Statement/v1",
///  "subject": [{"name": "<file name>", "digest": {"sha256": "<sha256 of the resource digests>"}}],
///  "predicateType": "https://model_signing/signature/v1.0",
///  "predicate": {"resources": [{"name": ".", "algorithm": "sha256", "digest": "<sha256 of the file>"}],
///                "serialization": {"method": "files", "hash_type": "sha256", "allow_symlinks": false,
///                                  "ignore_paths": [".git", …]}}}
/// ```
/// Accepted only in that shape: exactly one subject and one resource named `.` (upstream names
/// the single file it signed `.`), SHA-256 throughout, the `files` serialization; the subject's
/// digest recomputed from the resources. `ignore_paths` is never applied (it is what the signer
/// chose to leave out; for one file there is nothing to leave out, and a verifier that honoured
/// it would let the signature decide what it covers).
struct ModelSigningStatement: Sendable, Hashable {
    static let statementType = "https://in-toto.io/Statement/v1"
    static let predicateType = "https://model_signing/signature/v1.0"
    /// The v0.1/v0.2 predicate upstream still reads for compatibility; refused here.
    static let compatibilityPredicateType = "https://model_signing/Digests/v0.1"

    /// The subject's name: the signed file's name.
    var subjectName: String
    /// The SHA-256 of the one file signed (64 lowercase hex).
    var fileSHA256: String

    /// Reads and checks the signed `payload`.
    init(payload: [UInt8]) throws(PublisherSignatureProblem) {
        let root: JSONValue
        do { root = try JSONValue.parse(Data(payload), limits: JSONLimits(maxDepth: 16)) } catch {
            throw .statement("is not JSON (\(error.message))")
        }
        guard case .object(let top) = root else { throw .statement("is not a JSON object") }
        guard case .string(let type)? = top["_type"], type == Self.statementType else {
            throw .statement("is not an in-toto Statement v1 (_type \(Self.quoted(top["_type"])))")
        }
        guard case .string(let predicate)? = top["predicateType"] else { throw .statement("has no predicateType") }
        if predicate == Self.compatibilityPredicateType { throw .compatibilityFormat("the v0.1/v0.2 predicate \(predicate)") }
        guard predicate == Self.predicateType else { throw .statement("has predicate type \(Self.quoted(top["predicateType"])), not \(Self.predicateType)") }
        let (name, subjectDigest) = try Self.subject(top["subject"])
        guard case .object(let body)? = top["predicate"] else { throw .statement("has no predicate object") }
        try Self.checkSerialization(body["serialization"])
        let file = try Self.singleResource(body["resources"])
        let computed = SHA256Hasher.hash(Data(Hex.decodeSHA256(file) ?? [])).hex
        guard computed == subjectDigest else { throw .inconsistentSubject(signed: subjectDigest, computed: computed) }
        subjectName = name
        fileSHA256 = file
    }

    /// The one subject's name and SHA-256.
    private static func subject(_ value: JSONValue?) throws(PublisherSignatureProblem) -> (String, String) {
        guard case .array(let subjects)? = value else { throw .statement("has no subject list") }
        guard subjects.count == 1 else { throw .statement("has \(subjects.count) subjects, not one") }
        guard case .object(let s) = subjects[0], case .string(let name)? = s["name"],
              case .object(let digest)? = s["digest"], case .string(let sha)? = digest["sha256"] else {
            throw .statement("has a subject without a name and a sha256 digest")
        }
        guard Hex.isSHA256(sha) else { throw .statement("has a subject digest that is not 64 lowercase hex digits") }
        return (name, sha)
    }

    /// `files` serialization with SHA-256 (shards and other hashes are not one file's SHA-256).
    private static func checkSerialization(_ value: JSONValue?) throws(PublisherSignatureProblem) {
        guard case .object(let s)? = value else { throw .statement("has no serialization description") }
        guard case .string(let method)? = s["method"] else { throw .statement("has no serialization method") }
        guard method == "files" else {
            throw .notSingleFile("serialization method \"\(method.prefix(40))\"; only \"files\" is read, sign without --shard options")
        }
        guard case .string(let hash)? = s["hash_type"], hash == "sha256" else {
            throw .notSingleFile("hash type \(quoted(s["hash_type"])), not sha256")
        }
    }

    /// The SHA-256 of the one resource, which must be named `.`.
    private static func singleResource(_ value: JSONValue?) throws(PublisherSignatureProblem) -> String {
        guard case .array(let resources)? = value else { throw .statement("has no resources") }
        guard resources.count == 1 else {
            throw .notSingleFile(resources.isEmpty ? "no resources" : "\(resources.count) files, a folder")
        }
        guard case .object(let r) = resources[0], case .string(let name)? = r["name"],
              case .string(let algorithm)? = r["algorithm"], case .string(let digest)? = r["digest"] else {
            throw .statement("has a resource without a name, an algorithm and a digest")
        }
        guard name == "." else { throw .notSingleFile("a folder holding \"\(name.prefix(200))\"") }
        guard algorithm == "sha256", Hex.isSHA256(digest) else {
            throw .notSingleFile("a \(algorithm.prefix(20)) digest, not 64 lowercase hex digits of sha256")
        }
        return digest
    }

    private static func quoted(_ value: JSONValue?) -> String {
        if case .string(let s)? = value { return "\"\(s.prefix(120))\"" }
        return value?.typeName ?? "missing"
    }
}

extension Hex {
    /// The 32 bytes of a 64-digit lowercase hex SHA-256; nil for anything else.
    static func decodeSHA256(_ s: String) -> [UInt8]? {
        guard isSHA256(s) else { return nil }
        let u = Array(s.utf8)
        func nibble(_ c: UInt8) -> UInt8 { c <= 57 ? c - 48 : c - 87 }
        return stride(from: 0, to: 64, by: 2).map { nibble(u[$0]) << 4 | nibble(u[$0 + 1]) }
    }
}
