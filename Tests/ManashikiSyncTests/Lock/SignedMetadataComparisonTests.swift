import Foundation
import Manashiki
import ManashikiSync
import Testing

/// `SignedMetadataComparison`: how a lock's signed metadata versions stand against a store's.
@Suite("SignedMetadataComparison")
struct SignedMetadataComparisonTests {
    static func v(_ root: Int, _ timestamp: Int, _ snapshot: Int, _ targets: Int) -> SignedMetadataVersions {
        SignedMetadataVersions(root: root, timestamp: timestamp, snapshot: snapshot, targets: targets)
    }

    @Test("the relation of the lock's versions to the store's, and only a lock without versions for trust.tuf is a difference",
          arguments: [
              (v(1, 7, 7, 5), v(1, 7, 7, 5), true, SignedMetadataComparison.Relation.same),
              (v(1, 7, 7, 5), v(1, 9, 9, 5), true, .older),
              (v(1, 7, 7, 5), v(2, 7, 7, 5), true, .older),
              (v(1, 9, 9, 6), v(1, 7, 7, 5), true, .newer),
              (v(2, 3, 3, 3), v(1, 7, 7, 5), true, .mixed),
              (v(1, 7, 7, 5), nil, true, .storeTrustsNone),
              (nil, v(1, 7, 7, 5), true, .lockHasNone),
              (v(1, 7, 7, 5), nil, false, .notConfigured),
          ] as [(SignedMetadataVersions?, SignedMetadataVersions?, Bool, SignedMetadataComparison.Relation)])
    func relation(_ lock: SignedMetadataVersions?, _ store: SignedMetadataVersions?, _ configured: Bool,
                  _ expected: SignedMetadataComparison.Relation) throws {
        let comparison = try #require(SignedMetadataComparison(lock: lock, store: store, tufConfigured: configured))
        #expect(comparison.relation == expected)
        #expect(comparison.isDifference == (expected == .lockHasNone))
        #expect(!comparison.message.isEmpty)
        if let lock { #expect(comparison.message.contains(lock.description)) }
    }

    @Test("nothing to compare without trust.tuf and without versions in the lock")
    func nothing() {
        #expect(SignedMetadataComparison(lock: nil, store: Self.v(1, 1, 1, 1), tufConfigured: false) == nil)
    }

    @Test("a store's trusted state gives versions only when all four top-level roles are there")
    func fromState() {
        let date = Date(timeIntervalSince1970: 0)
        let roles = ["root", "timestamp", "snapshot", "targets"].enumerated().map { TUFTrustedState.Role(name: $1, version: $0 + 1, expires: date) }
        #expect(SignedMetadataVersions(TUFTrustedState(roles: roles)) == Self.v(1, 2, 3, 4))
        #expect(SignedMetadataVersions(TUFTrustedState(roles: Array(roles.dropLast()))) == nil)
        #expect(Self.v(1, 2, 3, 4).description == "root v1, timestamp v2, snapshot v3, targets v4")
    }
}
