import Foundation

/// Hand-built JSON bodies: the registry writes its wire JSON itself (never through the SDK's
/// `Codable` types), so a misnamed field on either side cannot go unnoticed.
enum JSONBody {
    /// Serialises a `JSONSerialization` object graph with sorted keys.
    static func encode(_ object: Any) -> Data {
        (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]))
            ?? Data("{}".utf8)
    }

    /// The contract's error body: `{"error": {"code": …, "message": …}}`.
    static func error(code: String, message: String) -> Data {
        encode(["error": ["code": code, "message": message]])
    }

    /// Parses a request body as a JSON object, or returns a message saying why it is not one.
    static func object(_ data: Data) -> Result<[String: Any], JSONBodyError> {
        guard !data.isEmpty else { return .failure(JSONBodyError(message: "the request body is empty; send a JSON object")) }
        guard let value = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) else {
            return .failure(JSONBodyError(message: "the request body is not valid JSON"))
        }
        guard let object = value as? [String: Any] else {
            return .failure(JSONBodyError(message: "the request body must be a JSON object"))
        }
        return .success(object)
    }

    /// Whether a number from `JSONSerialization` is a JSON `true`/`false` (stored as a char).
    static func isBoolean(_ n: NSNumber) -> Bool {
        String(cString: n.objCType) == "c"
    }

    /// An integer field that is a JSON number without a fractional part (not a Boolean).
    static func int(_ value: Any?) -> Int? {
        guard let n = value as? NSNumber, !isBoolean(n) else { return nil }
        let d = n.doubleValue
        guard d.rounded() == d, abs(d) < 9.0e18 else { return nil }
        return n.intValue
    }
}

/// Why a request body could not be used.
struct JSONBodyError: Error {
    /// A sentence for the `message` of a `400 bad_request`.
    let message: String
}
