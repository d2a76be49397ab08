import Foundation

extension APIError: LocalizedError, CustomStringConvertible {
    /// What happened and what to do about it, in words a person can act on.
    public var errorDescription: String? {
        switch self {
        case .invalidAPIKey:
            return "The API key is not a valid Manashiki key. Copy it again from the dashboard: it starts with mk_pub_, mk_live_, mk_svc_ or sk_live_, has no surrounding spaces or newlines, and ends in at least 20 letters and digits."
        case .forbiddenScope:
            return "This API key's tier may not do this. A publishable mk_pub_ key may only list and download; creating sessions needs a legacy sk_live_ key (the only kind the registry issues sessions for today: mk_live_ and mk_svc_ keys are refused); uploading models needs a server key (mk_live_, mk_svc_ or sk_live_). Use the key that the method needs, on your backend."
        case .invalidModelId(let id):
            return "\(Self.quoted(id)) is not a valid model id. Ids are 1 to 128 characters of lowercase letters, digits, '.', '_' and '-', start and end with a letter or digit, and contain no '..'."
        case .badRequest(let message):
            return "The registry rejected the request: \(message). Fix the request and try again."
        case .unauthorized:
            return "The registry does not accept this API key (revoked or unknown). Create a new key in the dashboard and update your configuration."
        case .sessionRequired:
            return "This model is private: pass a session token (downloadModel(_:session:)) issued by your backend with createSession."
        case .invalidSession:
            return "The session token is expired or malformed. Ask your backend for a fresh one and try again."
        case .modelNotFound(let id):
            return "No model \(Self.quoted(id)) is visible to this key's organisation. Check the id against listModels() and the key's organisation."
        case .modelSunset(let id):
            return "Model \(Self.quoted(id)) has been sunset and can no longer be downloaded. Move to its successor (see its registry record)."
        case .rateLimited(let retryAfter):
            if let retryAfter { return "The registry is rate limiting this key. Try again in \(retryAfter) \(retryAfter == 1 ? "second" : "seconds")." }
            return "The registry is rate limiting this key. Wait a minute and try again."
        case .server(let status, let message):
            return "The registry had an internal problem (HTTP \(status)\(message.map { ": \($0)" } ?? "")). This is usually temporary: try again in a few minutes."
        case .unexpectedStatus(let status, let message):
            return "The registry answered HTTP \(status), a status this SDK does not expect\(message.map { " (it said: \"\($0)\")" } ?? ""). Check the base URL points at a Manashiki registry, or update the SDK."
        case .integrityMismatch(let expected, let actual):
            return "The downloaded file is corrupt: its SHA-256 is \(actual) but the registry says \(expected). Nothing was installed and the previous copy is intact; try again, and report it if it persists."
        case .bodyTooLong(let expected):
            return "The storage host sent more than the declared \(expected) bytes; the transfer was stopped and nothing was installed. Try again; report it if it persists."
        case .bodyTooShort(let expected, let received):
            return "The transfer ended after \(received) of \(expected) bytes. Nothing was installed; try again (a retry resumes where it stopped)."
        case .downloadURLExpired(let id, let status):
            return "The signed download URL of \(Self.quoted(id)) expired before the transfer reached the storage host (HTTP \(status)). Nothing was installed; request the download again (a new URL is issued)."
        case .refusedURL(let reason):
            return "Refused to connect: \(reason). Only https URLs (and http to this machine) are followed, so credentials and artifacts cannot be sent or fetched elsewhere."
        case .registryDisagrees(let detail):
            // A download ticket that disagrees with the catalog: the registry is mid-update, not a proxy.
            return "The registry's answers disagree: \(detail)."
        case .invalidResponse(let detail):
            return "The registry's answer could not be read (\(detail)). Check the base URL points at a Manashiki registry and not a proxy or captive portal."
        case .transport(let detail):
            return "The network request failed: \(detail). Check the connection and try again."
        case .certificateDateInvalid(let host, let reason):
            return "The certificate of \(host) is not trusted: \(reason). Check this machine's clock; if it is right, the operator of \(host) must renew the certificate."
        case .untrustedCertificate(let host, let reason):
            return "The certificate of \(host) is not trusted: \(reason). If \(host) uses a private or corporate CA, add its CA with `registry.caBundle` in the manifest, `--ca-bundle FILE`, or SSL_CERT_FILE (in code: `DefaultTransport(trust: TLSTrust(caBundle:))`)."
        case .certificateNameMismatch(let host, let validFor):
            let names = validFor.isEmpty ? "other names" : validFor
            return "The certificate of \(host) is valid for \(names), not \(host). Check the host name in the URL (registry.baseURL or the mirror's URL), or ask the operator of \(host) for a certificate that names it."
        case .caCertificatesUnusable(let detail):
            return "The trusted CA certificates cannot be loaded: \(detail)."
        case .fileSystem(let operation, let path, let code):
            return "Could not \(operation) \(path): \(Self.errnoText(code)). \(Self.fileSystemHint(code, path: path, operation: operation))"
        case .proxy(let failure):
            return failure.description
        }
    }

    /// The same text as `errorDescription`.
    public var description: String { errorDescription ?? "APIError" }

    /// Whether `errorDescription` already says the failure is usually temporary (a 5xx, a proxy
    /// that could not reach the host), so advice that adds it says it once.
    package var saysUsuallyTemporary: Bool {
        switch self {
        case .server: return true
        case .proxy(let failure): return failure.saysUsuallyTemporary
        default: return false
        }
    }

    /// What to do about a file-system failure (`path` tells a model file from the package's
    /// own files, which no person is expected to put there).
    static func fileSystemHint(_ code: Int32, path: String = "", operation: String = "") -> String {
        let model = path.hasSuffix(".bin")
        switch code {
        case ENOSPC, EDQUOT: return "Free up disk space (the download needs room for a temporary copy) and try again."
        case EACCES, EPERM: return "Give this process write permission to the storage directory, or choose another with storageDirectory:."
        case EROFS: return "The storage directory is on a read-only file system; choose a writable one."
        case ELOOP: return "A symbolic link is in the way; the storage directory, its .manashiki folder and the files in them are never reached through a symbolic link: replace the link with a real directory or remove it."
        case EISDIR: return model ? "A directory stands where the model file should be; remove or rename it."
            : "A directory stands where this file should be; remove or rename it (it is written again)."
        case EFBIG: return "This is not a file this library wrote (the limits are in docs/reliability.md); move it away, and it is written again."
        case EINVAL where operation.contains("not a regular file"):
            return "Something other than a regular file (a FIFO, a device, a socket) stands there; remove it."
        default: return "Check the storage directory exists and is writable."
        }
    }

    static func errnoText(_ code: Int32) -> String {
        guard let s = strerror(code) else { return "errno \(code)" }
        return String(cString: s)
    }

    /// A string quoted for a message, with control and invisible characters escaped so a
    /// hostile id cannot forge log lines or hide itself.
    static func quoted(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars.prefix(200) {
            if scalar.value < 0x20 || scalar.value == 0x7F || scalar == "\"" || scalar == "\\"
                || !scalar.isASCII && (scalar.properties.generalCategory == .format || scalar.properties.generalCategory == .control
                    || scalar.properties.isWhitespace) {
                out += String(format: "\\u{%X}", scalar.value)
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        if s.unicodeScalars.count > 200 { out += "…" }
        return out + "\""
    }
}
