import Foundation

/// Validation of model ids (CONTRACT §2).
///
/// An id is `^[a-z0-9](?:[a-z0-9._-]{0,126}[a-z0-9])?$` and contains no `..`. Ids become
/// file names (`<modelId>.bin`), so an id that fails this is rejected before it is used in a
/// URL or a path. Lowercase-only keeps ids collision-free on case-insensitive file systems.
public enum ModelID {
    /// The longest valid id, in characters.
    public static let maxLength = 128

    /// Whether `id` is a valid model id.
    public static func isValid(_ id: String) -> Bool {
        let b = Array(id.utf8)
        guard !b.isEmpty, b.count <= maxLength else { return false }
        func isEdge(_ c: UInt8) -> Bool { (c >= 97 && c <= 122) || (c >= 48 && c <= 57) }
        func isInner(_ c: UInt8) -> Bool { isEdge(c) || c == 46 || c == 95 || c == 45 } // . _ -
        guard isEdge(b[0]), isEdge(b[b.count - 1]) else { return false }
        for i in b.indices {
            guard isInner(b[i]) else { return false }
            if i > 0, b[i] == 46, b[i - 1] == 46 { return false }
        }
        return true
    }

    /// Returns `id` unchanged if it is valid.
    /// - Throws: `APIError.invalidModelId` otherwise.
    @discardableResult
    public static func validate(_ id: String) throws -> String {
        guard isValid(id) else { throw APIError.invalidModelId(id) }
        return id
    }

    /// The file name a model is stored under: `<modelId>.bin`.
    public static func fileName(for id: String) -> String { "\(id).bin" }

    /// The model id of a store file name, if it is `<valid-id>.bin`.
    public static func modelId(fromFileName name: String) -> String? {
        guard name.hasSuffix(".bin") else { return nil }
        let id = String(name.dropLast(4))
        return isValid(id) ? id : nil
    }
}
