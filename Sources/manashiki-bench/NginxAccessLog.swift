import Foundation

/// nginx's access log in the bench's own format, read after every run to say how a tool
/// fetched the artifact: how many connections and requests, how many of them `Range`
/// requests, and how many body bytes nginx sent (more than the artifact: bytes fetched twice).
/// Portable (plain text parsing), so it is tested on every platform.
struct NginxAccessLog: Sendable {
    /// The `log_format` (no spaces inside a field; nginx writes `-` for an empty variable).
    static let format = "$connection $request_method $status $body_bytes_sent \"$http_range\""

    /// What one run's requests add up to.
    struct Summary: Equatable, Sendable {
        /// `GET` requests (rclone's `HEAD` is not a transfer).
        var requests = 0
        /// Distinct TCP connections that carried a `GET`.
        var connections = 0
        /// `GET`s with a `Range` header.
        var rangedRequests = 0
        /// Body bytes nginx sent for those `GET`s.
        var bytes: Int64 = 0
        /// `GET`s answered with something other than 200 or 206.
        var failures = 0
    }

    let url: URL

    /// Empties the log in place (nginx opens it with `O_APPEND`, so it keeps writing at the new
    /// end; a new file, as `FileManager.createFile` writes one, would leave nginx writing to the old).
    func reset() {
        guard let handle = FileHandle(forWritingAtPath: url.path) else { return }
        try? handle.truncate(atOffset: 0)
        try? handle.close()
    }

    /// The requests logged since the last `reset()`.
    func read() -> Summary {
        Self.summarize((try? String(contentsOf: url, encoding: .utf8)) ?? "")
    }

    /// The requests logged since the last `reset()`, once their body bytes reach `bytes`:
    /// nginx writes a line when it has handed the last byte to the socket, which can be just
    /// after the client has it; waits at most `patience` seconds for the line.
    func read(untilBytes bytes: Int64, patience: Double = 5) -> Summary {
        var summary = read()
        var waited = 0.0
        while summary.bytes < bytes && waited < patience {
            usleep(50_000)
            waited += 0.05
            summary = read()
        }
        return summary
    }

    /// Adds up log lines in `format`; lines that do not parse are ignored.
    static func summarize(_ text: String) -> Summary {
        var summary = Summary()
        var connections = Set<Substring>()
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count >= 5, fields[1] == "GET", let status = Int(fields[2]), let bytes = Int64(fields[3]) else { continue }
            summary.requests += 1
            connections.insert(fields[0])
            if fields[4] != "\"-\"" { summary.rangedRequests += 1 }
            summary.bytes += bytes
            if status != 200 && status != 206 { summary.failures += 1 }
        }
        summary.connections = connections.count
        return summary
    }
}
