/// `Content-Range: bytes START-END/TOTAL` (TOTAL may be `*`).
struct ContentRange: Equatable {
    var start: Int64
    var end: Int64
    var total: Int64?

    init?(_ header: String?) {
        guard let header, header.hasPrefix("bytes ") else { return nil }
        let spec = header.dropFirst(6)
        let parts = spec.split(separator: "/", maxSplits: 1)
        guard parts.count == 2 else { return nil }
        let bounds = parts[0].split(separator: "-", maxSplits: 1)
        guard bounds.count == 2, let s = Int64(bounds[0]), let e = Int64(bounds[1]), s >= 0, e >= s else { return nil }
        start = s
        end = e
        if parts[1] == "*" { total = nil } else {
            guard let t = Int64(parts[1]), t > e else { return nil }
            total = t
        }
    }
}
