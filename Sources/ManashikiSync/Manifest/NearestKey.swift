import Foundation

/// Suggests the known word nearest a typo (`verison` → `version`).
package enum NearestKey {
    /// The candidate with the smallest edit distance, if it is close enough to be a typo.
    package static func suggestion(for word: String, among candidates: [String]) -> String? {
        let lowered = word.lowercased()
        if lowered.count >= 3, let prefixed = candidates.first(where: { $0.lowercased().hasPrefix(lowered) }) { return prefixed }
        let scored = candidates.map { ($0, distance(lowered, $0.lowercased())) }
        guard let best = scored.min(by: { $0.1 < $1.1 }) else { return nil }
        return best.1 <= max(2, word.count / 3) ? best.0 : nil
    }

    /// Levenshtein distance.
    package static func distance(_ a: String, _ b: String) -> Int {
        let x = Array(a), y = Array(b)
        if x.isEmpty { return y.count }
        if y.isEmpty { return x.count }
        var previous = Array(0...y.count)
        for i in 1...x.count {
            var current = [i] + Array(repeating: 0, count: y.count)
            for j in 1...y.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (x[i - 1] == y[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[y.count]
    }
}
