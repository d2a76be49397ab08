import Foundation

/// The catalog as the registry sent it (`GET /api/models`): the valid entries, and the entries
/// that are not (a bad id, a negative or fractional size, a malformed digest, wrong types), so
/// one bad entry cannot hide every other model.
///
/// ```swift
/// let catalog = try await client.listCatalog()
/// for bad in catalog.rejected { print("ignored:", bad) }
/// for entry in catalog.entries { print(entry.modelId, entry.version) }
/// ```
public struct CatalogListing: Sendable, Hashable {
    /// An entry that cannot be used, and why.
    public struct Rejected: Sendable, Hashable, CustomStringConvertible {
        /// Its position in the answer's `models` array.
        public var index: Int
        /// Its `modelId`, when that is a valid model id (so a caller can tell which model is affected).
        public var modelId: String?
        /// What is wrong (`has a negative size`).
        public var problem: String

        /// Creates a rejected entry.
        public init(index: Int, modelId: String?, problem: String) {
            self.index = index
            self.modelId = modelId
            self.problem = problem
        }

        /// `models[3] (beta) has a negative size`.
        public var description: String { "models[\(index)]\(modelId.map { " (\($0))" } ?? "") \(problem)" }
    }

    /// The valid entries, in the registry's order.
    public var entries: [ModelEntry]
    /// The invalid ones.
    public var rejected: [Rejected]

    /// Creates a listing.
    public init(entries: [ModelEntry], rejected: [Rejected] = []) {
        self.entries = entries
        self.rejected = rejected
    }
}

/// The body of `GET /api/models`, decoded entry by entry.
struct ModelCatalogResponse: Decodable {
    /// One element of `models`: an entry, or why it is not one.
    struct Element: Decodable {
        var entry: ModelEntry?
        var modelId: String?
        var problem: String?

        private enum Keys: String, CodingKey { case modelId }

        init(from decoder: any Decoder) throws {
            modelId = try? decoder.container(keyedBy: Keys.self).decode(String.self, forKey: .modelId)
            do { entry = try ModelEntry(from: decoder) } catch let error as DecodingError {
                problem = "is not a valid entry: \(DecodingErrorText.describe(error, relativeTo: decoder.codingPath.count))"
            } catch {
                // Foundation reports a number that fits no Swift type (1.5 for an integer) with
                // an error of its own, not a DecodingError.
                problem = "is not a valid entry: a number does not fit its field (a fractional or huge size?)"
            }
        }
    }

    var models: [Element]
}
