import Foundation
import Manashiki

extension VersionedJSON {
    /// Decodes a lock file or a bundle index (`what`) at `location` through the SDK's versioned
    /// reader, wording what is wrong as an `ArtifactFileError` with a hint.
    /// - Throws: `ArtifactFileError` naming `location` and, for a field, its JSON path; its
    ///   `cause` is `.newerFormat` for a document a newer version wrote.
    static func decodeFile<T: Decodable>(_ type: T.Type, from data: Data, supported: Int, location: String, what: String) throws -> T {
        switch decode(T.self, from: data, supported: supported) {
        case .success(let value):
            return value
        case .failure(.notJSON(let why)):
            throw ArtifactFileError(location: location, message: "is not a valid \(what) (not valid JSON: \(why))",
                                    hint: "write it again with \(Remedy.agent), or restore it from where it came from")
        case .failure(.notVersionedJSON):
            throw ArtifactFileError(location: location, message: "is not a valid \(what) (not a JSON object with an integer \"\(versionKey)\")",
                                    hint: "write it again with \(Remedy.agent), or restore it from where it came from")
        case .failure(.missingVersion):
            throw ArtifactFileError(location: location, message: "\(versionKey): is missing", hint: "this is not a \(what) written by \(Remedy.agent)")
        case .failure(.newer(let version)):
            throw ArtifactFileError(location: location, message: "\(versionKey): \(what) format \(version) is newer than this \(Remedy.agent) reads (\(supported))",
                                    hint: "upgrade \(Remedy.agent), or write the \(what) with this version", cause: .newerFormat(version))
        case .failure(.unsupported(let version)):
            throw ArtifactFileError(location: location, message: "\(versionKey): \(what) format \(version) is not supported (this version reads \(supported))",
                                    hint: "write the \(what) again with this version of \(Remedy.agent)")
        case .failure(.invalid(let path, let reason)):
            throw ArtifactFileError(location: location, message: "\(path.isEmpty ? "(document)" : path): \(reason)",
                                    hint: "write the \(what) again with \(Remedy.agent)")
        }
    }
}
