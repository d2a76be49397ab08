import Foundation

/// A crontab(5) entry read the way Vixie/Debian cron reads it: five time fields (minute,
/// hour, day of month, month, day of week), each `*` or a list of numbers and ranges, with an
/// optional `/step`, then the command. Names (`mon`, `jan`) and `@reboot`-style specials are
/// not used by the examples and are refused.
struct CrontabEntry: Equatable {
    /// The command's words, shell redirections left out.
    var argv: [String]
    /// The command as cron hands it to `/bin/sh -c`.
    var command: String

    static let bounds: [ClosedRange<Int>] = [0...59, 0...23, 1...31, 1...12, 0...7]

    init?(_ line: String) {
        let words = line.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        guard words.count > 5 else { return nil }
        for (field, range) in zip(words.prefix(5), Self.bounds) {
            guard Self.valid(field, range) else { return nil }
        }
        argv = words.dropFirst(5).filter { !$0.hasPrefix(">") && !$0.hasPrefix("2>") }
        command = words.dropFirst(5).joined(separator: " ")
    }

    static func valid(_ field: String, _ range: ClosedRange<Int>) -> Bool {
        field.split(separator: ",", omittingEmptySubsequences: false).allSatisfy { item in
            let parts = item.split(separator: "/", omittingEmptySubsequences: false)
            guard (1...2).contains(parts.count) else { return false }
            if parts.count == 2 { guard let step = Int(parts[1]), step >= 1, step <= range.upperBound else { return false } }
            if parts[0] == "*" { return true }
            let ends = parts[0].split(separator: "-", omittingEmptySubsequences: false).map { Int($0) }
            guard (1...2).contains(ends.count), ends.allSatisfy({ $0.map(range.contains) == true }) else { return false }
            return ends.count == 1 ? parts.count == 1 : ends[0]! <= ends[1]!
        }
    }
}
