import Foundation

/// A dotted numeric version such as `1.4.0`, `17.0` or `2.0.0-beta.1`, compared component by
/// component (`1.10.0` > `1.9.3`; missing components count as 0, so `1.2` == `1.2.0`).
///
/// A pre-release suffix (`-beta.1`) sorts before the release it precedes and is compared as text.
///
/// ```swift
/// ModelVersion("1.10.0")! > ModelVersion("1.9.3")!   // true
/// ModelVersion("1.x")                                // nil
/// ```
public struct ModelVersion: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The numeric components, at least one.
    public let components: [Int]
    /// The pre-release suffix after `-`, if any.
    public let prerelease: String?
    /// The text this version was parsed from.
    public let text: String

    /// Parses `text`; nil unless it is 1 to 4 dot-separated non-negative integers, optionally
    /// followed by `-` and a pre-release label of letters, digits and dots.
    public init?(_ text: String) {
        var core = Substring(text)
        var pre: String?
        if let dash = text.firstIndex(of: "-") {
            core = text[..<dash]
            let label = text[text.index(after: dash)...]
            guard !label.isEmpty, label.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == ".") }) else { return nil }
            pre = String(label)
        }
        let parts = core.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...4).contains(parts.count) else { return nil }
        var numbers: [Int] = []
        for part in parts {
            guard !part.isEmpty, part.count <= 9, part.allSatisfy({ $0.isASCII && $0.isNumber }), let n = Int(part) else { return nil }
            numbers.append(n)
        }
        components = numbers
        prerelease = pre
        self.text = text
    }

    /// The component at `index`, 0 when absent.
    public func component(_ index: Int) -> Int { index < components.count ? components[index] : 0 }

    /// The original text.
    public var description: String { text }

    /// Equal when every component (missing ones as 0) and the pre-release label are equal.
    public static func == (lhs: ModelVersion, rhs: ModelVersion) -> Bool {
        compare(lhs, rhs) == .orderedSame
    }

    /// Hashes the normalised form, consistent with `==`.
    public func hash(into hasher: inout Hasher) {
        var trimmed = components
        while trimmed.count > 1, trimmed.last == 0 { trimmed.removeLast() }
        hasher.combine(trimmed)
        hasher.combine(prerelease)
    }

    /// Component-by-component order; a pre-release sorts before its release.
    public static func < (lhs: ModelVersion, rhs: ModelVersion) -> Bool {
        compare(lhs, rhs) == .orderedAscending
    }

    private static func compare(_ a: ModelVersion, _ b: ModelVersion) -> ComparisonResult {
        for i in 0..<max(a.components.count, b.components.count) {
            let x = a.component(i), y = b.component(i)
            if x != y { return x < y ? .orderedAscending : .orderedDescending }
        }
        switch (a.prerelease, b.prerelease) {
        case (nil, nil): return .orderedSame
        case (nil, _): return .orderedDescending
        case (_, nil): return .orderedAscending
        case let (x?, y?): return x == y ? .orderedSame : (x < y ? .orderedAscending : .orderedDescending)
        }
    }
}
