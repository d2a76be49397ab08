import Foundation

/// Raw JSON parsing for assertions (never the SDK's Codable types).
enum JSON {
    static func object(_ data: Data) -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
    }

    /// `error.code` of a contract error body.
    static func errorCode(_ data: Data) -> String? {
        (object(data)?["error"] as? [String: Any])?["code"] as? String
    }

    /// `error.message` of a contract error body.
    static func errorMessage(_ data: Data) -> String? {
        (object(data)?["error"] as? [String: Any])?["message"] as? String
    }

    /// A string value as a URL.
    static func url(_ value: Any?) -> URL? {
        (value as? String).flatMap { URL(string: $0) }
    }

    static func data(_ object: Any) -> Data {
        try! JSONSerialization.data(withJSONObject: object)
    }

    static func isLowerHex64(_ value: Any?) -> Bool {
        guard let s = value as? String else { return false }
        return s.count == 64 && s.allSatisfy { ("0"..."9").contains($0) || ("a"..."f").contains($0) }
    }
}
