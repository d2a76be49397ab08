import Foundation
import ManashikiCore
import Manashiki

/// Parses the manifest's `sources` and `fallback` (and `sync --from`), reporting every problem
/// with its JSON path and a fix. URLs are checked before anything connects: https, or http to
/// this machine, or http with `"allowHTTP": true` (safe for integrity, since every byte is
/// verified against its digest, but anyone on the path sees which models are fetched); no
/// credentials, query or fragment (a mirror gets no secrets).
enum ArtifactSourceParser {
    static let keys = ["bundle", "mirror", "oci", "s3", "private", "allowHTTP", "tag", "credentials"] + S3SourceParser.keys
    static let kinds = ["bundle", "mirror", "oci", "s3"]
    static let kindHint = #"write {"bundle": "/path/to/bundle"}, {"mirror": "https://host/path"}, {"oci": "registry.example/models", "tag": "v1"} or {"s3": "s3://bucket/prefix/"}"#

    /// The sources and fallback of a manifest's root object, and the problems found.
    static func parse(sources: JSONValue?, fallback: JSONValue?) -> ([ArtifactSource], SourceFallback, [ManifestProblem]) {
        var problems: [ManifestProblem] = []
        var list: [ArtifactSource] = []
        if let sources {
            if case .array(let items) = sources {
                for (i, item) in items.enumerated() {
                    switch entry(item, at: "sources[\(i)]") {
                    case .success(let source): list.append(source)
                    case .failure(let found): problems += found.problems
                    }
                }
            } else {
                problems.append(ManifestProblem(path: "sources", message: "must be an array, not \(sources.typeName)", hint: "write \"sources\": [{\"bundle\": \"…\"}]"))
            }
        }
        var mode = SourceFallback.registry
        if let fallback {
            if case .string(let s) = fallback, let m = SourceFallback(rawValue: s) { mode = m } else {
                problems.append(ManifestProblem(path: "fallback", message: "must be \"registry\" or \"none\"", hint: "write \"fallback\": \"registry\" (the default) or \"none\" to never download from the registry"))
            }
        }
        return (list, mode, problems)
    }

    struct Problems: Error { var problems: [ManifestProblem] }

    /// One `sources[i]` entry.
    static func entry(_ value: JSONValue, at path: String) -> Result<ArtifactSource, Problems> {
        guard case .object(let o) = value else {
            return .failure(Problems(problems: [ManifestProblem(path: path, message: "must be an object, not \(value.typeName)", hint: kindHint)]))
        }
        var problems: [ManifestProblem] = []
        let kinds = o.keys.filter { Self.kinds.contains($0) }
        for key in o.keys.sorted() where !keys.contains(key) {
            let known = NearestKey.suggestion(for: key, among: keys)
            problems.append(ManifestProblem(path: ManifestPath.join(path, key),
                                            message: kinds.isEmpty ? "unknown source kind \"\(key)\"" : "unknown key",
                                            hint: known.map { "did you mean \"\($0)\"?" } ?? kindHint))
        }
        guard kinds.count == 1, let kind = kinds.first else {
            if kinds.count > 1 || problems.isEmpty {
                problems.append(ManifestProblem(path: path, message: kinds.count > 1 ? "has both " + Self.kinds.filter(kinds.contains).map { "\"\($0)\"" }.joined(separator: " and ") : "names no source kind", hint: kindHint))
            }
            return .failure(Problems(problems: problems))
        }
        func flag(_ key: String) -> Bool {
            guard let v = o[key] else { return false }
            if case .bool(let b) = v { return b }
            problems.append(ManifestProblem(path: ManifestPath.join(path, key), message: "must be true or false, not \(v.typeName)"))
            return false
        }
        let servesPrivate = flag("private")
        let allowHTTP = flag("allowHTTP")
        guard case .string(let text) = o[kind]!, !text.isEmpty else {
            problems.append(ManifestProblem(path: ManifestPath.join(path, kind), message: "must be a non-empty string", hint: kindHint))
            return .failure(Problems(problems: problems))
        }
        for key in ["tag", "credentials"] where o[key] != nil && kind != "oci" && !(kind == "s3" && key == "credentials") {
            problems.append(ManifestProblem(path: ManifestPath.join(path, key), message: "applies to \(key == "tag" ? "oci sources" : "oci and s3 sources") only", hint: "remove it"))
        }
        for key in S3SourceParser.keys where o[key] != nil && kind != "s3" {
            problems.append(ManifestProblem(path: ManifestPath.join(path, key), message: "applies to s3 sources only", hint: "remove it"))
        }
        var source: ArtifactSource?
        if kind == "s3" {
            source = S3SourceParser.entry(o, text: text, at: path, servesPrivate: servesPrivate, allowHTTP: allowHTTP, problems: &problems)
        } else if kind == "oci" {
            source = OCISourceParser.entry(o, text: text, at: path, servesPrivate: servesPrivate, allowHTTP: allowHTTP, problems: &problems)
        } else if kind == "bundle" {
            if allowHTTP { problems.append(ManifestProblem(path: ManifestPath.join(path, "allowHTTP"), message: "applies to mirrors only", hint: "remove it")) }
            source = ArtifactSource(.bundle(text), servesPrivate: servesPrivate)
        } else {
            switch mirrorURL(text, allowHTTP: allowHTTP) {
            case .success(let url): source = ArtifactSource(.mirror(url), servesPrivate: servesPrivate, allowsPlainHTTP: allowHTTP)
            case .failure(let why): problems.append(ManifestProblem(path: ManifestPath.join(path, "mirror"), message: why.message, hint: why.hint))
            }
        }
        guard problems.isEmpty, let source else { return .failure(Problems(problems: problems)) }
        return .success(source)
    }

    struct URLProblem: Error {
        var message: String
        var hint: String
        /// Plain http to a host other than this machine (the one problem a manifest's
        /// `"allowHTTP": true` lifts, so the command line's hint differs).
        var isPlainHTTP = false
    }

    /// Checks a mirror URL; the message shows it without credentials.
    static func mirrorURL(_ text: String, allowHTTP: Bool) -> Result<URL, URLProblem> {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
              let host = components.host, !host.isEmpty, let url = components.url else {
            return .failure(URLProblem(message: "\"\(redacted(text))\" is not an absolute URL", hint: "write it like \"https://models-cache.example.internal/bundle\""))
        }
        let shown = redacted(text)
        if components.user != nil || components.password != nil {
            return .failure(URLProblem(message: "\(shown) contains credentials (not shown); a mirror never receives credentials",
                                       hint: "serve the bundle without authentication (its bytes are verified) and restrict who can reach it by network, or use a bundle directory"))
        }
        if components.query != nil || components.fragment != nil {
            return .failure(URLProblem(message: "\(shown) has a query or fragment (not shown)", hint: "give the bundle's base URL only; blobs are fetched from <base>/blobs/sha256/<hex>"))
        }
        switch scheme {
        case "https": return .success(url)
        case "http":
            if allowHTTP || LoopbackHost.matches(host) { return .success(url) }
            return .failure(URLProblem(message: "\(shown) is plain http to another host",
                                       hint: "use https, or add \"allowHTTP\": true — safe for integrity (every byte is verified against its SHA-256) but anyone on the path sees which models are fetched",
                                       isPlainHTTP: true))
        default:
            return .failure(URLProblem(message: "\(shown) is not an http(s) URL", hint: "use https://…, or a {\"bundle\": \"path\"} source for a directory"))
        }
    }

    /// `--from DIR|URL`: a URL (with `://`) is a mirror, anything else a bundle directory.
    /// Plain http to another host cannot be allowed on the command line (there is no flag for
    /// it, so a typo cannot send fetches in the clear): the hint says how to list it in the manifest.
    static func commandLine(_ text: String) -> Result<ArtifactSource, URLProblem> {
        if OCIReference.isCommandLineReference(text) { return OCISourceParser.commandLine(text) }
        if S3Location.isS3URL(text) {
            return S3Location.parse(text).map { ArtifactSource(.s3(S3Settings($0))) }.mapError { URLProblem(message: $0.message, hint: $0.hint) }
        }
        guard text.contains("://") else { return .success(ArtifactSource(.bundle(text))) }
        return mirrorURL(text, allowHTTP: false).map { ArtifactSource(.mirror($0)) }.mapError { problem in
            guard problem.isPlainHTTP else { return problem }
            return URLProblem(message: problem.message,
                              hint: "use https, or list it in the manifest's \"sources\" as {\"mirror\": \"\(redacted(text))\", \"allowHTTP\": true} — safe for integrity (every byte is verified against its SHA-256) but anyone on the path sees which models are fetched")
        }
    }

    /// The URL with any userinfo and query replaced, for messages.
    static func redacted(_ text: String) -> String {
        guard var c = URLComponents(string: text) else { return "the URL" }
        if c.user != nil || c.password != nil { c.user = "***"; c.password = nil }
        if c.query != nil { c.query = "…" }
        if c.fragment != nil { c.fragment = nil }
        return c.string ?? "the URL"
    }
}
