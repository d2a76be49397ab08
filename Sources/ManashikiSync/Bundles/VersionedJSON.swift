import Foundation

/// Reads versioned JSON documents (a bundle's index, a lock file): the format version is
/// decoded first, a newer one is refused with "upgrade", then the document itself.
enum VersionedJSON {
    /// The key every such document starts with (keys are written sorted, so it comes first).
    static let versionKey = "formatVersion"

    /// Decodes `data` as `T` after checking its `formatVersion` equals `supported`.
    /// - Throws: `ArtifactFileError` naming `location` and, for a field, its JSON path.
    static func decode<T: Decodable>(_ type: T.Type, from data: Data, supported: Int, location: String, what: String) throws -> T {
        let header: Header
        do { header = try JSONDecoder().decode(Header.self, from: data) } catch {
            throw ArtifactFileError(location: location, message: "is not a valid \(what) (not a JSON object with an integer \"\(versionKey)\")",
                                    hint: "write it again with manashiki-sync, or restore it from where it came from")
        }
        guard let version = header.formatVersion else {
            throw ArtifactFileError(location: location, message: "\(versionKey): is missing", hint: "this is not a \(what) written by manashiki-sync")
        }
        if version > supported {
            throw ArtifactFileError(location: location, message: "\(versionKey): \(what) format \(version) is newer than this manashiki-sync reads (\(supported))",
                                    hint: "upgrade manashiki-sync, or write the \(what) with this version")
        }
        guard version == supported else {
            throw ArtifactFileError(location: location, message: "\(versionKey): \(what) format \(version) is not supported (this version reads \(supported))",
                                    hint: "write the \(what) again with this version of manashiki-sync")
        }
        do { return try JSONDecoder().decode(T.self, from: data) } catch let error as DecodingError {
            throw ArtifactFileError(location: location, message: "\(Self.path(of: error)): \(Self.reason(of: error))",
                                    hint: "write the \(what) again with manashiki-sync")
        }
    }

    /// Encodes with sorted keys (so `formatVersion` comes first) and a trailing newline.
    static func encode<T: Encodable>(_ value: T) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        return try encoder.encode(value) + Data("\n".utf8)
    }

    /// `models[3].sha256`.
    static func path(of error: DecodingError) -> String {
        let context: DecodingError.Context
        var last: String?
        switch error {
        case .keyNotFound(let key, let c): context = c; last = key.stringValue
        case .typeMismatch(_, let c), .valueNotFound(_, let c), .dataCorrupted(let c): context = c
        @unknown default: return "(document)"
        }
        var path = ""
        for key in context.codingPath + (last.map { [AnyKey($0)] } ?? []) {
            if let i = key.intValue { path += "[\(i)]" } else { path += path.isEmpty ? key.stringValue : ".\(key.stringValue)" }
        }
        return path.isEmpty ? "(document)" : path
    }

    static func reason(of error: DecodingError) -> String {
        switch error {
        case .keyNotFound: return "is missing"
        case .typeMismatch(let type, _): return "has the wrong type (expected \(type))"
        case .valueNotFound: return "is null"
        case .dataCorrupted: return "is not valid"
        @unknown default: return "is not valid"
        }
    }

    private struct Header: Decodable { var formatVersion: Int? }

    private struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ s: String) { stringValue = s }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}
