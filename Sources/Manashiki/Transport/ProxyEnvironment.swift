import Foundation

/// Which proxy a request takes, decided from the conventional environment variables the way
/// Go's net/http (rclone), Python requests and huggingface_hub decide it — one pure function,
/// applied per request by `CurlTransport` (Linux). Apple platforms use the system's proxy
/// settings instead (see `URLSessionTransport`).
///
/// | URL | variables, first set and non-empty wins |
/// |---|---|
/// | `http://` | `http_proxy`, `HTTP_PROXY` (not under CGI), `all_proxy`, `ALL_PROXY` |
/// | `https://` | `https_proxy`, `HTTPS_PROXY`, `all_proxy`, `ALL_PROXY` |
///
/// then `no_proxy`, else `NO_PROXY` (see `NoProxyList`) sends matching hosts direct.
///
/// Uppercase `HTTP_PROXY` is ignored when `REQUEST_METHOD` is set: a CGI server turns a
/// request's `Proxy:` header into `HTTP_PROXY`, so a program run under CGI would otherwise let
/// any client pick its proxy ("httpoxy", CVE-2016-5385). libcurl ignores uppercase `HTTP_PROXY`
/// always; operators put it in systemd units and Dockerfiles, so this honours it outside CGI,
/// as Go does. An empty variable counts as unset (Go, Python).
struct ProxyEnvironment: Sendable, Hashable {
    /// The variables that matter, copied from the environment.
    let variables: [String: String]

    /// Every variable the decision reads.
    static let names = ["http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY",
                        "no_proxy", "NO_PROXY", "REQUEST_METHOD"]

    /// Keeps the proxy variables of `environment` (a process environment).
    init(_ environment: [String: String]) {
        variables = environment.filter { Self.names.contains($0.key) }
    }

    /// This process's environment.
    static var process: ProxyEnvironment { ProxyEnvironment(ProcessInfo.processInfo.environment) }

    /// Whether the process runs under CGI (then uppercase `HTTP_PROXY` may come from a client).
    var isCGI: Bool { !(variables["REQUEST_METHOD"] ?? "").isEmpty }

    /// The route for a request to `url`.
    func route(for url: URL) -> ProxyRoute {
        let scheme = url.scheme?.lowercased() ?? ""
        let candidates: [String]
        switch scheme {
        case "http": candidates = isCGI ? ["http_proxy", "all_proxy", "ALL_PROXY"] : ["http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY"]
        case "https": candidates = ["https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"]
        default: return .direct
        }
        guard let (variable, value) = first(of: candidates) else { return .direct }
        if let (listVariable, list) = first(of: ["no_proxy", "NO_PROXY"]), let host = Self.host(of: url),
           NoProxyList(list).matches(host: host, port: URLPolicy.effectivePort(url) ?? 80) {
            return .bypassed(variable: listVariable)
        }
        do {
            return .proxy(try ProxyServer(variable: variable, value: value))
        } catch {
            return .invalid(variable: variable, reason: error.reason)
        }
    }

    /// The first of `names` that is set and not empty, with its value. Blanks and line breaks
    /// around it are dropped: an environment file saved with CRLF line endings (systemd's
    /// `EnvironmentFile=`, Docker's `--env-file`) leaves a `\r` at the end of every value.
    private func first(of names: [String]) -> (String, String)? {
        for name in names {
            if let value = variables[name]?.trimmingCharacters(in: .whitespacesAndNewlines), !value.isEmpty { return (name, value) }
        }
        return nil
    }

    /// The host of `url` without IPv6 brackets.
    static func host(of url: URL) -> String? {
        guard var host = url.host, !host.isEmpty else { return nil }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return host
    }
}

/// How one request reaches its host.
enum ProxyRoute: Sendable, Hashable {
    /// No variable names a proxy for the URL's scheme: connect directly.
    case direct
    /// A proxy is set, but the named no-proxy variable covers the host: connect directly.
    case bypassed(variable: String)
    /// Through this proxy.
    case proxy(ProxyServer)
    /// The variable that would choose the proxy does not hold a usable proxy URL.
    case invalid(variable: String, reason: String)

    /// The proxy, when the request goes through one.
    var server: ProxyServer? {
        if case .proxy(let server) = self { return server }
        return nil
    }
}
