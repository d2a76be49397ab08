import Foundation
@testable import Manashiki
import ManashikiCore
import Testing

/// The one implementation of the high-water rules, over any storage (a file, a Keychain item):
/// here an in-memory one whose reads can fail, as a Keychain read fails before the first unlock.
@Suite("High-water ledger")
struct HighWaterLedgerTests {
    /// Stored bytes, and whether reading them fails.
    final class Storage: @unchecked Sendable {
        let state = Locked<(data: Data?, unreadable: Bool, saves: Int)>((nil, false, 0))
        struct Unreadable: Error {}

        var ledger: HighWaterLedger {
            HighWaterLedger(load: { [state] in
                let s = state.current
                if s.unreadable { throw Unreadable() }
                return s.data
            }, save: { [state] data in state.withLock { $0.data = data; $0.saves += 1 } })
        }
    }

    @Test("records versions and only a later check; the document is format 1 with sorted keys, as the file")
    func rules() throws {
        let storage = Storage()
        let ledger = storage.ledger
        try ledger.record("2.0.0", for: "tiny")
        try ledger.recordCheck(Date(timeIntervalSince1970: 1_800_000_000))
        try ledger.recordCheck(Date(timeIntervalSince1970: 1_700_000_000))
        #expect(storage.state.current.saves == 2, "an earlier check is not written")
        #expect(ledger.highest("tiny") == "2.0.0" && ledger.latestCheck() == Date(timeIntervalSince1970: 1_800_000_000))
        let text = String(decoding: try #require(storage.state.current.data), as: UTF8.self)
        #expect(text == #"{"formatVersion":1,"latestCheck":"2027-01-15T08:00:00Z","models":{"tiny":"2.0.0"}}"#)
    }

    @Test("marks that cannot be read are never written over: a change throws and nothing is saved")
    func unreadableIsNotOverwritten() throws {
        let storage = Storage()
        try storage.ledger.record("2.0.0", for: "tiny")
        storage.state.withLock { $0.unreadable = true }
        #expect(throws: Storage.Unreadable.self) { try storage.ledger.record("1.0.0", for: "other") }
        #expect(throws: Storage.Unreadable.self) { try storage.ledger.recordCheck(Date()) }
        #expect(storage.ledger.highest("tiny") == nil, "unreadable marks read as none")
        storage.state.withLock { $0.unreadable = false }
        #expect(storage.ledger.highest("tiny") == "2.0.0" && storage.ledger.highest("other") == nil && storage.state.current.saves == 1)
    }
}
