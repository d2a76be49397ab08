import Foundation
import Manashiki
import ManashikiCore

/// The typed readers every section uses: each records a problem with its path and returns nil.
extension ManifestValidator {
    mutating func checkKeys(_ o: [String: JSONValue], known: [String], at path: String) {
        for key in o.keys.sorted() where !known.contains(key) {
            let hint = NearestKey.suggestion(for: key, among: known).map { "did you mean \"\($0)\"?" }
                ?? "known keys here: \(known.joined(separator: ", "))"
            problems.append(ManifestProblem(path: ManifestPath.join(path, key), message: "unknown key", hint: hint))
        }
    }

    mutating func object(_ value: JSONValue, at path: String, known: [String]) -> [String: JSONValue]? {
        guard case .object(let o) = value else {
            problems.append(ManifestProblem(path: path, message: "must be an object, not \(value.typeName)"))
            return nil
        }
        checkKeys(o, known: known, at: path)
        return o
    }

    mutating func string(_ o: [String: JSONValue], _ key: String, at path: String, nonEmpty: Bool = false) -> String? {
        guard let value = o[key] else { return nil }
        guard case .string(let s) = value else {
            problems.append(ManifestProblem(path: ManifestPath.join(path, key), message: "must be a string, not \(value.typeName)"))
            return nil
        }
        if nonEmpty && s.isEmpty {
            problems.append(ManifestProblem(path: ManifestPath.join(path, key), message: "must not be empty"))
            return nil
        }
        return s
    }

    mutating func int(_ o: [String: JSONValue], _ key: String, at path: String, range: ClosedRange<Int>) -> Int? {
        guard let value = o[key] else { return nil }
        let full = ManifestPath.join(path, key)
        guard let n = value.number, n == n.rounded(), abs(n) < 1e15 else {
            problems.append(ManifestProblem(path: full, message: "must be an integer, not \(value.typeName == "a number" ? "a fraction" : value.typeName)"))
            return nil
        }
        guard range.contains(Int(n)) else {
            problems.append(ManifestProblem(path: full, message: "\(Int(n)) is out of range", hint: "use a value from \(range.lowerBound) to \(range.upperBound)"))
            return nil
        }
        return Int(n)
    }

    /// A byte count: an integer or a size with a unit (`ByteSize`: `"8GB"`, `"3.5GiB"`), within
    /// `range`; `zero`, when given, explains why 0 is refused.
    mutating func byteSize(_ o: [String: JSONValue], _ key: String, at path: String, range: ClosedRange<Int64>, zero: String?) -> Int64? {
        guard let value = o[key] else { return nil }
        let full = ManifestPath.join(path, key)
        let hint = #"write a byte count (8000000000) or a size with a unit, like "8GB" or "7.5GiB""#
        let bytes: Int64
        switch value {
        case .int(let i): bytes = Int64(i)
        case .string(let text):
            guard let parsed = ByteSize.parse(text) else {
                let negative = text.trimmingCharacters(in: .whitespaces).hasPrefix("-")
                problems.append(ManifestProblem(path: full, message: negative ? "\"\(text)\" is negative" : "\"\(text)\" is not a size", hint: hint))
                return nil
            }
            bytes = parsed
        default:
            guard let n = value.number else {
                problems.append(ManifestProblem(path: full, message: "must be a byte count or a size, not \(value.typeName)", hint: hint))
                return nil
            }
            guard n == n.rounded() else {
                problems.append(ManifestProblem(path: full, message: "must be a whole number of bytes, not a fraction", hint: hint))
                return nil
            }
            bytes = abs(n) < 9e18 ? Int64(n) : (n < 0 ? Int64.min : Int64.max)
        }
        if bytes < 0 {
            problems.append(ManifestProblem(path: full, message: "\(bytes) is negative", hint: "a budget is 0 bytes or more; \(hint)"))
        } else if bytes == 0, range.lowerBound > 0 {
            problems.append(ManifestProblem(path: full, message: "0 is out of range", hint: zero ?? "use at least \(range.lowerBound)"))
        } else if bytes > range.upperBound {
            problems.append(ManifestProblem(path: full, message: "\(bytes) bytes is more than 1 PiB, which is not a store's size",
                                            hint: "check the number and its unit (write sizes like \"64GB\" or \"512GiB\")"))
        } else { return bytes }
        return nil
    }

    mutating func bool(_ o: [String: JSONValue], _ key: String, at path: String) -> Bool? {
        guard let value = o[key] else { return nil }
        guard case .bool(let b) = value else {
            problems.append(ManifestProblem(path: ManifestPath.join(path, key), message: "must be true or false, not \(value.typeName)"))
            return nil
        }
        return b
    }

    mutating func platformValue(_ value: JSONValue?, at path: String) -> Platform? {
        guard let value else { return nil }
        let names = Platform.known.map(\.rawValue)
        guard case .string(let s) = value else {
            problems.append(ManifestProblem(path: path, message: "must be a string, not \(value.typeName)", hint: oneOf(names, near: "")))
            return nil
        }
        guard names.contains(s) else {
            problems.append(ManifestProblem(path: path, message: "\"\(s)\" is not a platform", hint: oneOf(names, near: s)))
            return nil
        }
        return Platform(rawValue: s)
    }

    func oneOf(_ names: [String], near word: String) -> String {
        if !word.isEmpty, let best = NearestKey.suggestion(for: word, among: names) { return "did you mean \"\(best)\"?" }
        return "use one of " + names.map { "\"\($0)\"" }.joined(separator: ", ")
    }
}
