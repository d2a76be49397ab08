import Testing
import Foundation
@testable import ManashikiSync

/// `store.budget`, `class` and `priority`: what decodes, and each mistake named with its fix.
@Suite("Manifest: store.budget and model classes")
struct BudgetManifestTests {
    static func manifest(store: String = "{}", model: String = #"{"id": "a"}"#) -> String {
        #"{"schemaVersion": 1, "store": \#(store), "models": [\#(model)]}"#
    }

    static func problems(_ json: String) -> [ManifestProblem] {
        do { _ = try Manifest.decode(Data(json.utf8)); return [] } catch let error as ManifestError { return error.problems } catch { return [] }
    }

    @Test("a budget in bytes or with units, and every class, decode")
    func decodes() throws {
        let m = try Manifest.decode(Data(#"""
        {"schemaVersion": 1, "store": {"budget": {"maxBytes": "6GB", "keepFreeBytes": 1073741824}},
         "models": [{"id": "r"}, {"id": "o", "class": "optional", "priority": 7}, {"id": "legacy", "optional": true},
                    {"id": "d", "class": "onDemand"}, {"id": "same", "optional": true, "class": "optional"}]}
        """#.utf8))
        #expect(m.store.budget == StoreBudget(maxBytes: 6_000_000_000, keepFreeBytes: 1 << 30))
        #expect(m.models.map(\.modelClass) == [.required, .optional, .optional, .onDemand, .optional])
        #expect(m.models[1].priority == 7)
        #expect(m.models[3].isOptional)
    }

    /// A bad input, the path it is reported at, and words the message or hint must hold.
    struct Bad: Sendable, CustomTestStringConvertible {
        var testDescription: String
        var json: String
        var path: String
        var says: [String]
    }

    static let bad: [Bad] = [
        .init(testDescription: "a negative maxBytes", json: manifest(store: #"{"budget": {"maxBytes": -5}}"#),
              path: "store.budget.maxBytes", says: ["-5 is negative", "8GB"]),
        .init(testDescription: "a negative size string", json: manifest(store: #"{"budget": {"keepFreeBytes": "-2GB"}}"#),
              path: "store.budget.keepFreeBytes", says: ["is negative"]),
        .init(testDescription: "a maxBytes of 0", json: manifest(store: #"{"budget": {"maxBytes": 0}}"#),
              path: "store.budget.maxBytes", says: ["can hold no model"]),
        .init(testDescription: "an absurd budget (more than 1 PiB)", json: manifest(store: #"{"budget": {"maxBytes": "5000TB"}}"#),
              path: "store.budget.maxBytes", says: ["more than 1 PiB", "unit"]),
        .init(testDescription: "a size that is not one", json: manifest(store: #"{"budget": {"maxBytes": "4 gigs"}}"#),
              path: "store.budget.maxBytes", says: ["\"4 gigs\" is not a size", "\"8GB\""]),
        .init(testDescription: "a fraction of a byte", json: manifest(store: #"{"budget": {"maxBytes": 10.5}}"#),
              path: "store.budget.maxBytes", says: ["whole number of bytes"]),
        .init(testDescription: "a budget of the wrong type", json: manifest(store: #"{"budget": {"maxBytes": true}}"#),
              path: "store.budget.maxBytes", says: ["must be a byte count or a size"]),
        .init(testDescription: "an empty budget", json: manifest(store: #"{"budget": {}}"#),
              path: "store.budget", says: ["names no limit", "maxBytes"]),
        .init(testDescription: "a misspelt budget key", json: manifest(store: #"{"budget": {"maxbytes": 5}}"#),
              path: "store.budget.maxbytes", says: ["unknown key", "did you mean \"maxBytes\"?"]),
        .init(testDescription: "an unknown class", json: manifest(model: #"{"id": "a", "class": "ondemand"}"#),
              path: "models[0].class", says: ["\"ondemand\" is not a model class", "did you mean \"onDemand\"?"]),
        .init(testDescription: "a class that is not a string", json: manifest(model: #"{"id": "a", "class": 2}"#),
              path: "models[0].class", says: ["must be a string"]),
        .init(testDescription: "optional contradicting class", json: manifest(model: #"{"id": "a", "optional": true, "class": "onDemand"}"#),
              path: "models[0].optional", says: ["contradicts \"class\": \"onDemand\"", "remove \"optional\""]),
        .init(testDescription: "a priority on a required model", json: manifest(model: #"{"id": "a", "priority": 3}"#),
              path: "models[0].priority", says: ["applies only to optional and on-demand models", "\"class\": \"optional\""]),
        .init(testDescription: "a priority out of range", json: manifest(model: #"{"id": "a", "class": "optional", "priority": 5000}"#),
              path: "models[0].priority", says: ["out of range", "-1000 to 1000"]),
    ]

    @Test("a budget or class mistake is one problem naming the field and the fix", arguments: bad)
    func refused(_ c: Bad) {
        let problems = Self.problems(c.json)
        #expect(problems.count == 1, "\(problems)")
        let p = problems.first
        #expect(p?.path == c.path, "\(String(describing: p))")
        for words in c.says { #expect(p?.description.contains(words) == true, "\(String(describing: p)) lacks \(words)") }
    }
}
