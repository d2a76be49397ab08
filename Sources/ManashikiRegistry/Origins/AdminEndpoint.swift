import Foundation
import ManashikiCore

/// The admin endpoints on the API origin, for tests and scripts driving a running registry:
///
/// | request | effect |
/// |---|---|
/// | `GET /_admin/faults` | `{"faults": [rule…]}` |
/// | `POST /_admin/faults` | arms a rule (or `{"faults": [rule…]}`); answers the armed list |
/// | `DELETE /_admin/faults` | disarms every fault |
/// | `GET /_admin/requests` | `{"requests": [entry…]}` (the request log) |
/// | `DELETE /_admin/requests` | clears the log |
/// | `GET /_admin/stats` | `{"openDownloads": n, "maxConcurrentDownloads": n}` |
/// | `POST /_admin/sessions/expire` | expires every session token |
///
/// Allowed from loopback peers; when `adminToken` is configured, every admin request must
/// carry `X-Admin-Token: <token>` (and non-loopback peers are allowed only then).
struct AdminEndpoint {
    let state: RegistryState

    /// Answers an admin request.
    func handle(_ request: ServerRequest) -> ServerResponse {
        if let token = state.configuration.adminToken {
            guard let sent = request.header("X-Admin-Token"), Hex.constantTimeEqual(sent, token) else {
                return .error(403, "forbidden", "admin requests need the X-Admin-Token header")
            }
        } else if !request.fromLoopback {
            return .error(403, "forbidden", "admin requests are accepted from loopback only (or configure an admin token)")
        }
        switch (request.method, request.path) {
        case ("GET", "/_admin/faults"):
            return faultList()
        case ("POST", "/_admin/faults"):
            return armFaults(request.body)
        case ("DELETE", "/_admin/faults"):
            state.faults.clear()
            return faultList()
        case ("GET", "/_admin/requests"):
            return .json(200, ["requests": state.log.entries.map(Self.encode)])
        case ("DELETE", "/_admin/requests"):
            state.log.clear()
            return .json(200, ["requests": [Any]()])
        case ("GET", "/_admin/stats"):
            return .json(200, ["openDownloads": state.gauge.open, "maxConcurrentDownloads": state.gauge.maximum])
        case ("POST", "/_admin/sessions/expire"):
            return .json(200, ["expired": state.expireSessions()])
        default:
            return .error(404, "not_found", "unknown admin endpoint \(request.method) \(request.path)")
        }
    }

    private func faultList() -> ServerResponse {
        .json(200, ["faults": state.faults.all.map(FaultJSON.encode)])
    }

    private func armFaults(_ body: Data) -> ServerResponse {
        let object: [String: Any]
        switch JSONBody.object(body) {
        case .success(let o): object = o
        case .failure(let e): return .error(400, "bad_request", e.message)
        }
        let values: [Any]
        let root: String
        if let list = object["faults"] as? [Any] {
            values = list
            root = "$.faults"
        } else {
            values = [object]
            root = ""
        }
        var rules: [RegistryFaultRule] = []
        for (i, value) in values.enumerated() {
            do {
                rules.append(try FaultJSON.rule(value, path: root.isEmpty ? "$" : "\(root)[\(i)]"))
            } catch {
                return .error(400, "bad_request", "\(error.path): \(error.problem). \(error.fix)")
            }
        }
        for rule in rules { state.faults.set(rule) }
        return faultList()
    }

    /// Over HTTP the log is redacted: any local process can read it, so keys, bearer tokens and
    /// URL signatures are replaced (the Swift `requestLog()` keeps them for tests).
    private static func encode(_ entry: LoggedRequest) -> [String: Any] {
        let secretHeaders: Set<String> = ["x-api-key", "authorization", "x-admin-token"]
        let headers = entry.headers.map { h in [h.name, secretHeaders.contains(h.name.lowercased()) ? "[redacted]" : h.value] }
        return ["origin": entry.origin.rawValue, "method": entry.method, "path": entry.path,
                "query": entry.query.map { redactSignature($0) as Any } ?? NSNull(), "target": redactSignature(entry.target),
                "headers": headers, "sequence": entry.sequence]
    }

    /// `sig=…` query values replaced by `[redacted]`.
    static func redactSignature(_ text: String) -> String {
        guard let regex = try? NSRegularExpression(pattern: "(sig=)[^&]*") else { return text }
        return regex.stringByReplacingMatches(in: text, range: NSRange(text.startIndex..., in: text), withTemplate: "$1[redacted]")
    }
}
