import Foundation

/// A problem in a JSON fault description: where, what, and how to fix it.
struct FaultJSONError: Error {
    /// The JSON path of the offending value (`$.faults[0].status`).
    let path: String
    /// What is wrong.
    let problem: String
    /// How to fix it.
    let fix: String
}

/// The JSON form of fault rules, shared by the catalog file and `POST /_admin/faults`:
///
/// ```json
/// {"endpoint": "storage", "modelId": "tiny", "type": "status", "status": 503, "count": 2}
/// ```
enum FaultJSON {
    /// The accepted `type` values.
    static let types = ["rate_limited", "status", "error", "truncated_body", "corrupt_byte", "extra_bytes",
                        "no_content_length", "slow_drip", "stall", "ignore_range", "expired_url", "wrong_digest",
                        "missing_digest", "redirect", "download_url", "connection_reset", "replaced_object",
                        "expire_mid_body", "tuf_rollback", "tuf_expired", "tuf_mis_signed"]

    /// Parses one rule.
    static func rule(_ value: Any, path: String) throws(FaultJSONError) -> RegistryFaultRule {
        guard let o = value as? [String: Any] else {
            throw FaultJSONError(path: path, problem: "a fault must be a JSON object",
                                 fix: #"write e.g. {"endpoint": "storage", "type": "status", "status": 503}"#)
        }
        guard let endpointName = o["endpoint"] as? String, let endpoint = RegistryEndpoint(rawValue: endpointName) else {
            throw FaultJSONError(path: path + ".endpoint", problem: "missing or unknown endpoint \(describe(o["endpoint"]))",
                                 fix: "use one of: " + RegistryEndpoint.allCases.map(\.rawValue).joined(separator: ", "))
        }
        var modelId: String?
        if let m = o["modelId"], !(m is NSNull) {
            guard let s = m as? String, RegistryModel.isValidModelId(s) else {
                throw FaultJSONError(path: path + ".modelId", problem: "not a valid model id: \(describe(m))",
                                     fix: "use a model id from the catalog, or omit modelId to match every model")
            }
            modelId = s
        }
        var count: Int?
        if let c = o["count"], !(c is NSNull) {
            guard let n = JSONBody.int(c), n >= 1 else {
                throw FaultJSONError(path: path + ".count", problem: "count must be a positive integer, not \(describe(c))",
                                     fix: "write e.g. \"count\": 2, or omit it to fire on every request")
            }
            count = n
        }
        let kind = try self.kind(o, path: path)
        guard kind.applies(to: endpoint) else {
            throw FaultJSONError(path: path + ".endpoint", problem: "a \(o["type"] as? String ?? "") fault does not apply to the \(endpoint.rawValue) endpoint",
                                 fix: kind.isTUF ? "write \"endpoint\": \"tuf\" (TUF faults damage /tuf/metadata/)"
                                                 : "on the tuf endpoint use a tuf_* fault, or one that answers or damages timestamp.json (status, error, rate_limited, redirect, connection_reset, truncated_body, corrupt_byte, stall…)")
        }
        return RegistryFaultRule(endpoint: endpoint, modelId: modelId, fault: RegistryFault(kind, count: count))
    }

    private static func kind(_ o: [String: Any], path: String) throws(FaultJSONError) -> RegistryFault.Kind {
        guard let type = o["type"] as? String, types.contains(type) else {
            throw FaultJSONError(path: path + ".type", problem: "missing or unknown fault type \(describe(o["type"]))",
                                 fix: "use one of: " + types.joined(separator: ", "))
        }
        let f = Fields(o: o, path: path)
        switch type {
        case "rate_limited": return .rateLimited(retryAfter: try f.retryAfter())
        case "status": return .status(try f.status(default: nil))
        case "error":
            return .error(status: try f.status(default: nil), code: (o["code"] as? String) ?? "injected_fault",
                          message: (o["message"] as? String) ?? "injected fault")
        case "truncated_body":
            return .truncatedBody(keepBytes: try f.int("keepBytes", default: nil), declareLength: try f.bool("contentLength", default: true))
        case "corrupt_byte": return .corruptByte(offset: try f.int("offset", default: nil))
        case "extra_bytes":
            return .extraBytes(count: try f.int("bytes", default: nil), declareLength: try f.bool("contentLength", default: false))
        case "no_content_length": return .noContentLength(chunked: try f.bool("chunked", default: true))
        case "slow_drip":
            return .slowDrip(chunkBytes: try f.int("chunkBytes", default: 1024) ?? 1024,
                             intervalMilliseconds: try f.int("intervalMs", default: 50) ?? 50)
        case "stall": return .stall(afterBytes: try f.int("afterBytes", default: 0) ?? 0)
        case "ignore_range": return .ignoreRange
        case "replaced_object": return .replacedObject
        case "expire_mid_body": return .expireMidBody(afterBytes: try f.int("afterBytes", default: 1 << 20) ?? (1 << 20))
        case "expired_url":
            let s = try f.status(default: 403)
            guard s == 403 || s == 410 else {
                throw FaultJSONError(path: path + ".status", problem: "expired_url answers 403 or 410, not \(s)", fix: "write 403 or 410")
            }
            return .expiredURL(status: s)
        case "wrong_digest": return .wrongDigest
        case "missing_digest": return .missingDigest(asNull: try f.bool("null", default: false))
        case "redirect": return .redirect(target: try f.target(), status: try f.status(default: 302))
        case "download_url": return .downloadURL(target: try f.target())
        case "tuf_rollback": return .tufRollback(role: try f.tufRole())
        case "tuf_expired": return .tufExpired(role: try f.tufRole())
        case "tuf_mis_signed": return .tufMisSigned(role: try f.tufRole(), modifiedAfterSigning: try f.signature())
        default: return .connectionReset(afterBytes: try f.int("afterBytes", default: nil))
        }
    }

    /// The typed fields of one fault object at `path`, each refused with its path and fix.
    private struct Fields {
        let o: [String: Any]
        let path: String

        func int(_ key: String, default value: Int?) throws(FaultJSONError) -> Int? {
            guard let raw = o[key], !(raw is NSNull) else { return value }
            guard let n = JSONBody.int(raw), n >= 0 else {
                throw FaultJSONError(path: "\(path).\(key)", problem: "\(key) must be a non-negative integer, not \(FaultJSON.describe(raw))",
                                     fix: "write a whole number, or omit \(key)")
            }
            return n
        }

        func bool(_ key: String, default value: Bool) throws(FaultJSONError) -> Bool {
            guard let raw = o[key], !(raw is NSNull) else { return value }
            guard let n = raw as? NSNumber, JSONBody.isBoolean(n) else {
                throw FaultJSONError(path: "\(path).\(key)", problem: "\(key) must be true or false, not \(FaultJSON.describe(raw))",
                                     fix: "write true or false, or omit \(key)")
            }
            return n.boolValue
        }

        func status(default value: Int?) throws(FaultJSONError) -> Int {
            guard let n = try int("status", default: value), (100...599).contains(n) else {
                throw FaultJSONError(path: path + ".status", problem: "a status code between 100 and 599 is required",
                                     fix: "write e.g. \"status\": 503")
            }
            return n
        }

        func target() throws(FaultJSONError) -> RegistryFault.RedirectTarget {
            switch o["target"] as? String {
            case "other_origin": return .otherOrigin
            case "remote_http": return .remoteHTTP
            case "file": return .file
            case let s? where URL(string: s)?.scheme != nil: return .url(s)
            default:
                throw FaultJSONError(path: path + ".target", problem: "missing or invalid target \(FaultJSON.describe(o["target"]))",
                                     fix: "use \"other_origin\", \"remote_http\", \"file\" or an absolute URL")
            }
        }

        /// `role` of a TUF fault: `timestamp`, `snapshot` or `targets`.
        func tufRole() throws(FaultJSONError) -> RegistryFault.TUFRole {
            guard let name = o["role"] as? String, let role = RegistryFault.TUFRole(rawValue: name) else {
                throw FaultJSONError(path: path + ".role", problem: "missing or unknown TUF role \(FaultJSON.describe(o["role"]))",
                                     fix: "use one of: " + RegistryFault.TUFRole.allCases.map(\.rawValue).joined(separator: ", "))
            }
            return role
        }

        /// `signature` of `tuf_mis_signed`: `wrong_key` (the default) or `modified` (true).
        func signature() throws(FaultJSONError) -> Bool {
            switch o["signature"] {
            case nil, is NSNull: return false
            case let s as String where s == "wrong_key": return false
            case let s as String where s == "modified": return true
            case let other:
                throw FaultJSONError(path: path + ".signature", problem: "unknown signature fault \(FaultJSON.describe(other))",
                                     fix: "write \"wrong_key\" (a key the root does not list) or \"modified\" (bytes changed after signing)")
            }
        }

        /// `retryAfter`: seconds, an HTTP-date, or null (none); 1 second when absent.
        func retryAfter() throws(FaultJSONError) -> RegistryFault.RetryAfter? {
            guard o.keys.contains("retryAfter") else { return .seconds(1) }
            switch o["retryAfter"] {
            case is NSNull: return nil
            case let s as String:
                guard let date = HTTPDate.parse(s) else {
                    throw FaultJSONError(path: path + ".retryAfter", problem: "\"\(s)\" is not an HTTP-date",
                                         fix: "write seconds (e.g. 2) or an IMF-fixdate like \"Sun, 06 Nov 1994 08:49:37 GMT\"")
                }
                return .date(date)
            default:
                return .seconds(try int("retryAfter", default: 1) ?? 1)
            }
        }
    }

    /// The JSON form of a rule (the inverse of `rule(_:path:)`).
    static func encode(_ rule: RegistryFaultRule) -> [String: Any] {
        var o: [String: Any] = ["endpoint": rule.endpoint.rawValue]
        if let m = rule.modelId { o["modelId"] = m }
        if let c = rule.fault.count { o["count"] = c }
        func target(_ t: RegistryFault.RedirectTarget) -> String {
            switch t {
            case .otherOrigin: "other_origin"
            case .remoteHTTP: "remote_http"
            case .file: "file"
            case .url(let s): s
            }
        }
        switch rule.fault.kind {
        case .rateLimited(let r):
            o["type"] = "rate_limited"
            switch r {
            case nil: o["retryAfter"] = NSNull()
            case .seconds(let s)?: o["retryAfter"] = s
            case .date(let d)?: o["retryAfter"] = HTTPDate.format(d)
            }
        case .status(let s): o["type"] = "status"; o["status"] = s
        case .error(let s, let code, let message): o["type"] = "error"; o["status"] = s; o["code"] = code; o["message"] = message
        case .truncatedBody(let keep, let declare):
            o["type"] = "truncated_body"; o["contentLength"] = declare
            if let keep { o["keepBytes"] = keep }
        case .corruptByte(let offset): o["type"] = "corrupt_byte"; if let offset { o["offset"] = offset }
        case .extraBytes(let n, let declare):
            o["type"] = "extra_bytes"; o["contentLength"] = declare
            if let n { o["bytes"] = n }
        case .noContentLength(let chunked): o["type"] = "no_content_length"; o["chunked"] = chunked
        case .slowDrip(let bytes, let ms): o["type"] = "slow_drip"; o["chunkBytes"] = bytes; o["intervalMs"] = ms
        case .stall(let after): o["type"] = "stall"; o["afterBytes"] = after
        case .ignoreRange: o["type"] = "ignore_range"
        case .replacedObject: o["type"] = "replaced_object"
        case .expireMidBody(let after): o["type"] = "expire_mid_body"; o["afterBytes"] = after
        case .expiredURL(let s): o["type"] = "expired_url"; o["status"] = s
        case .wrongDigest: o["type"] = "wrong_digest"
        case .missingDigest(let asNull): o["type"] = "missing_digest"; o["null"] = asNull
        case .redirect(let t, let s): o["type"] = "redirect"; o["target"] = target(t); o["status"] = s
        case .downloadURL(let t): o["type"] = "download_url"; o["target"] = target(t)
        case .connectionReset(let after): o["type"] = "connection_reset"; if let after { o["afterBytes"] = after }
        case .tufRollback(let role): o["type"] = "tuf_rollback"; o["role"] = role.rawValue
        case .tufExpired(let role): o["type"] = "tuf_expired"; o["role"] = role.rawValue
        case .tufMisSigned(let role, let modified):
            o["type"] = "tuf_mis_signed"; o["role"] = role.rawValue; o["signature"] = modified ? "modified" : "wrong_key"
        }
        return o
    }

    /// A short rendering of a JSON value for error messages.
    static func describe(_ value: Any?) -> String {
        guard let value else { return "(absent)" }
        if value is NSNull { return "null" }
        if let s = value as? String { return "\"\(s)\"" }
        if let data = try? JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed]),
           let s = String(data: data, encoding: .utf8) { return s.count > 60 ? String(s.prefix(57)) + "..." : s }
        return "\(value)"
    }
}
