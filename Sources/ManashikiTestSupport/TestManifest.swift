import Foundation

/// The `manashiki.json` the CLI and reliability fixtures write: one registry, a store with
/// concurrency 2, a Linux device, models by id plus raw JSON entries.
package enum TestManifest {
    /// `store.prune` unless a test says otherwise.
    package static let defaultPrune = #"{"mode": "tracked", "maxDeletes": 10}"#
    /// `policies` unless a test says otherwise: no compatibility check, one attempt.
    package static let defaultPolicies = #"{"checkCompatibility": false, "retry": {"maxAttempts": 1}}"#

    /// The manifest's text. `store` is `store.directory` as written (relative or absolute);
    /// `models` become `{"id": …}` entries, `extraEntries` are added as they are; `topLevel`
    /// (`"sources": […],`) is written as it is after the schema version.
    package static func text(baseURL: URL, store: String, models: [String], extraEntries: [String] = [],
                             prune: String = defaultPrune, policies: String? = nil, topLevel: String = "") -> String {
        let entries = models.map { #"{"id": "\#($0)"}"# } + extraEntries
        return """
        {"schemaVersion": 1, \(topLevel)
         "registry": {"baseURL": "\(baseURL.absoluteString)"},
         "store": {"directory": "\(store)", "concurrency": 2, "prune": \(prune)},
         "device": {"platform": "linux"},
         "policies": \(policies ?? defaultPolicies),
         "models": [\(entries.joined(separator: ", "))]}
        """
    }

    /// Writes `text(…)` to `url`.
    package static func write(to url: URL, baseURL: URL, store: String, models: [String], extraEntries: [String] = [],
                              prune: String = defaultPrune, policies: String? = nil, topLevel: String = "") throws {
        try Data(text(baseURL: baseURL, store: store, models: models, extraEntries: extraEntries, prune: prune, policies: policies,
                      topLevel: topLevel).utf8)
            .write(to: url)
    }
}
