#if os(Linux)
import Foundation

/// One figure with its target.
struct Figure {
    enum Comparison { case atMost, atLeast }
    var name: String
    var value: Double
    var unit: String
    var target: Double?
    var comparison: Comparison = .atMost
    var note: String = ""

    /// `ours ÷ theirs` of the medians of one measure (wall time by default), both in the note.
    static func ratio(_ name: String, _ ours: Samples, _ theirs: Samples, _ measure: KeyPath<Samples, [Double]> = \.wall, target: Double?) -> Figure {
        let a = median(ours[keyPath: measure]), b = median(theirs[keyPath: measure])
        return Figure(name: name, value: a / max(b, 1e-9), unit: "×", target: target, note: String(format: "%.2f s vs %.2f s", a, b))
    }

    var met: Bool? {
        guard let target else { return nil }
        return comparison == .atMost ? value <= target : value >= target
    }

    var targetText: String {
        guard let target else { return "" }
        return (comparison == .atMost ? "≤ " : "≥ ") + Self.format(target, unit)
    }

    static func format(_ v: Double, _ unit: String) -> String {
        switch unit {
        case "×": return String(format: "%.2f×", v)
        case "s": return String(format: "%.3f s", v)
        case "MiB": return String(format: "%.1f MiB", v)
        case "MB/s": return String(format: "%.0f MB/s", v)
        default: return String(format: "%.2f %@", v, unit)
        }
    }
}

/// Prints figures as a Markdown table (ready to paste into docs/benchmarks.md).
func printTable(_ title: String, _ figures: [Figure]) {
    print("\n#### \(title)\n")
    print("| figure | value | target | met |")
    print("|---|---|---|---|")
    for f in figures {
        let met = f.met.map { $0 ? "yes" : "**no**" } ?? "–"
        let note = f.note.isEmpty ? "" : " (\(f.note))"
        print("| \(f.name)\(note) | \(Figure.format(f.value, f.unit)) | \(f.targetText) | \(met) |")
    }
    fflush(nil) // all output streams (Swift 6 forbids touching the global `stdout`)
}
#endif
