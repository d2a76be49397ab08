/// A delegated role's path pattern matched as python-tuf matches it: the target path and the
/// pattern split at `/` into the same number of parts, each part matched by Python's
/// `fnmatch.fnmatchcase` (`*` any run of characters, `?` one, `[abc]`, `[a-z]` and `[!abc]`
/// sets, case-sensitive, no escapes; `[` without a closing `]` is itself).
enum TUFPathPattern {
    static func matches(_ path: String, pattern: String) -> Bool {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        let patterns = pattern.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == patterns.count else { return false }
        return zip(parts, patterns).allSatisfy { fnmatch(Array($0.unicodeScalars), Array($1.unicodeScalars)) }
    }

    private enum Token {
        case any, one, literal(Unicode.Scalar), set(negated: Bool, items: [(Unicode.Scalar, Unicode.Scalar)])
    }

    private static func tokens(_ p: [Unicode.Scalar]) -> [Token] {
        var out: [Token] = []
        var i = 0
        while i < p.count {
            let c = p[i]
            i += 1
            switch c {
            case "*": if case .any? = out.last {} else { out.append(.any) }
            case "?": out.append(.one)
            case "[":
                if let (token, next) = bracket(p, from: i) { out.append(token); i = next } else { out.append(.literal("[")) }
            default: out.append(.literal(c))
            }
        }
        return out
    }

    /// The set starting after `[` at `start`, and the index after its `]`; nil if it never closes.
    private static func bracket(_ p: [Unicode.Scalar], from start: Int) -> (Token, Int)? {
        var j = start
        var negated = false
        if j < p.count, p[j] == "!" { negated = true; j += 1 }
        var items: [(Unicode.Scalar, Unicode.Scalar)] = []
        var first = true
        while j < p.count {
            if p[j] == "]" && !first { return (.set(negated: negated, items: items), j + 1) }
            first = false
            if j + 2 < p.count, p[j + 1] == "-", p[j + 2] != "]" {
                if p[j].value <= p[j + 2].value { items.append((p[j], p[j + 2])) }
                j += 3
            } else {
                items.append((p[j], p[j]))
                j += 1
            }
        }
        return nil
    }

    private static func fnmatch(_ s: [Unicode.Scalar], _ pattern: [Unicode.Scalar]) -> Bool {
        let t = tokens(pattern)
        // Classic backtracking over the last `*`: linear in practice, never exponential.
        var si = 0, ti = 0
        var star: (token: Int, subject: Int)?
        while si < s.count {
            if ti < t.count, case .any = t[ti] {
                star = (ti, si)
                ti += 1
            } else if ti < t.count, matchesOne(t[ti], s[si]) {
                si += 1
                ti += 1
            } else if let (token, subject) = star {
                star = (token, subject + 1)
                ti = token + 1
                si = subject + 1
            } else {
                return false
            }
        }
        while ti < t.count, case .any = t[ti] { ti += 1 }
        return ti == t.count
    }

    private static func matchesOne(_ token: Token, _ c: Unicode.Scalar) -> Bool {
        switch token {
        case .any: false
        case .one: true
        case .literal(let l): l == c
        case .set(let negated, let items): items.contains { $0.0.value <= c.value && c.value <= $0.1.value } != negated
        }
    }
}
