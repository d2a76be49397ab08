import Foundation
import Manashiki

/// A repository in an OCI registry (the distribution spec's `<name>`), with an optional tag:
/// `HOST[:PORT]/REPO[:TAG]`, as `export oci://…`, `sync --from oci://…` and a manifest's
/// `{"oci": "HOST[:PORT]/REPO", "tag": "…"}` write it.
///
/// The registry is reached over https; plain http only when the reference says so
/// (`oci+http://` on the command line, `"oci": "http://…"` in a manifest) and the host is
/// this machine or the manifest allows it (`"allowHTTP": true`), as for mirrors.
/// `docker.io` is Docker Hub (its API is at `registry-1.docker.io`, one-word names are
/// `library/…`), as every container tool reads it.
public struct OCIReference: Sendable, Hashable, CustomStringConvertible {
    /// The registry host as written (`harbor.example.internal`, `127.0.0.1`, `[::1]`).
    public var host: String
    /// The port, when written.
    public var port: Int?
    /// The repository (`models/site-a`): lowercase path components, as the distribution spec allows.
    public var repository: String
    /// The tag, when given (`v3`, `2025-06-01`).
    public var tag: String?
    /// Plain http instead of https.
    public var plainHTTP: Bool

    /// Creates a reference (not validated: `parse` validates text).
    public init(host: String, port: Int? = nil, repository: String, tag: String? = nil, plainHTTP: Bool = false) {
        self.host = host
        self.port = port
        self.repository = repository
        self.tag = tag
        self.plainHTTP = plainHTTP
    }

    /// `HOST[:PORT]` as written.
    public var registry: String { port.map { "\(host):\($0)" } ?? host }

    /// Where the API is: `https://HOST[:PORT]` (Docker Hub's `registry-1.docker.io` for `docker.io`).
    public var baseURL: URL {
        let apiHost = host == "docker.io" || host == "index.docker.io" ? "registry-1.docker.io" : host
        return URL(string: "\(plainHTTP ? "http" : "https")://\(apiHost)\(port.map { ":\($0)" } ?? "")")!
    }

    /// `oci://HOST[:PORT]/REPO[:TAG]` (`oci+http://` for plain http).
    public var description: String {
        "\(plainHTTP ? "oci+http" : "oci")://\(registry)/\(repository)\(tag.map { ":\($0)" } ?? "")"
    }

    /// The same repository with another tag (or none).
    public func with(tag: String?) -> OCIReference {
        var copy = self
        copy.tag = tag
        return copy
    }

    /// What is wrong with a reference's text, and what to write instead.
    public struct Problem: Error, Sendable, Hashable, CustomStringConvertible {
        /// What is wrong.
        public var message: String
        /// What to do.
        public var hint: String
        /// `message — hint`.
        public var description: String { "\(message) — \(hint)" }
    }

    static let example = "oci://registry.example.internal/models/site:v1"

    /// Parses `[oci://|oci+http://|oci+https://|http://|https://]HOST[:PORT]/REPO[:TAG]`.
    /// - Parameters:
    ///   - requireTag: a tag must be given (a push needs one).
    ///   - allowTag: a tag may be given in the text (false for a manifest's `oci`, which has `tag`).
    public static func parse(_ text: String, requireTag: Bool = false, allowTag: Bool = true) -> Result<OCIReference, Problem> {
        var rest = Substring(text)
        var plain = false
        for (prefix, isPlain) in [("oci+http://", true), ("oci+https://", false), ("oci://", false), ("http://", true), ("https://", false)]
        where rest.lowercased().hasPrefix(prefix) {
            rest = rest.dropFirst(prefix.count)
            plain = isPlain
            break
        }
        if rest.contains("@") {
            return .failure(Problem(message: "\"\(shown(text))\" names a digest or carries credentials",
                                    hint: "name a repository and tag, like \(example); credentials go in the auth file or \"credentials\", never in the reference"))
        }
        guard let slash = rest.firstIndex(of: "/") else {
            return .failure(Problem(message: "\"\(shown(text))\" has no repository", hint: "write HOST[:PORT]/REPOSITORY[:TAG], like \(example)"))
        }
        let authority = rest[..<slash]
        var path = String(rest[rest.index(after: slash)...])
        guard let (host, port) = splitAuthority(authority) else {
            return .failure(Problem(message: "\"\(shown(text))\" does not start with a registry host", hint: "write HOST[:PORT]/REPOSITORY[:TAG], like \(example)"))
        }
        var tag: String?
        if let colon = path.lastIndex(of: ":") {
            tag = String(path[path.index(after: colon)...])
            path = String(path[..<colon])
        }
        if let tag {
            guard allowTag else {
                return .failure(Problem(message: "\"\(shown(text))\" has a tag in the repository", hint: "give the repository alone and the tag in \"tag\""))
            }
            guard isValidTag(tag) else {
                return .failure(Problem(message: "\"\(tag.prefix(140))\" is not a valid tag", hint: "a tag is up to 128 letters, digits, '_', '.' and '-', not starting with '.' or '-'"))
            }
        } else if requireTag {
            return .failure(Problem(message: "\"\(shown(text))\" has no tag", hint: "add one, like \(example)"))
        }
        if (host == "docker.io" || host == "index.docker.io") && !path.contains("/") { path = "library/" + path }
        guard isValidRepository(path) else {
            return .failure(Problem(message: "\"\(path.prefix(140))\" is not a valid repository name",
                                    hint: "use lowercase letters, digits and single '.', '_', '__' or '-' between them, in '/'-separated components (the distribution spec's names)"))
        }
        return .success(OCIReference(host: host, port: port, repository: path, tag: tag, plainHTTP: plain))
    }

    /// Whether `text` is meant as an OCI reference on the command line (`oci://…`, `oci+http://…`).
    public static func isCommandLineReference(_ text: String) -> Bool {
        let lower = text.lowercased()
        return lower.hasPrefix("oci://") || lower.hasPrefix("oci+http://") || lower.hasPrefix("oci+https://")
    }

    /// `HOST[:PORT]` → host and port; IPv6 literals in brackets.
    static func splitAuthority(_ authority: Substring) -> (String, Int?)? {
        var host = authority, port: Int?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            host = authority[...close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":"), let p = Int(after.dropFirst()), (1...65535).contains(p) else { return nil }
                port = p
            }
        } else if let colon = authority.lastIndex(of: ":") {
            host = authority[..<colon]
            guard let p = Int(authority[authority.index(after: colon)...]), (1...65535).contains(p) else { return nil }
            port = p
        }
        let valid = !host.isEmpty && host.unicodeScalars.allSatisfy { CharacterSet.alphanumerics.contains($0) && $0.isASCII || ".-[]:".unicodeScalars.contains($0) }
        return valid ? (String(host).lowercased(), port) : nil
    }

    /// The distribution spec's `[a-z0-9]+((\.|_|__|-+)[a-z0-9]+)*(\/[a-z0-9]+((\.|_|__|-+)[a-z0-9]+)*)*`.
    public static func isValidRepository(_ name: String) -> Bool {
        guard !name.isEmpty, name.count <= 255 else { return false }
        return name.split(separator: "/", omittingEmptySubsequences: false).allSatisfy { component in
            let chars = Array(component.unicodeScalars)
            guard let first = chars.first, let last = chars.last, isLowerAlnum(first), isLowerAlnum(last) else { return false }
            var i = 0
            while i < chars.count {
                if isLowerAlnum(chars[i]) { i += 1; continue }
                // A separator: '.', '_', '__' or one or more '-', between alphanumerics.
                var j = i
                if chars[i] == "." { j += 1 }
                else if chars[i] == "_" { j += 1; if j < chars.count && chars[j] == "_" { j += 1 } }
                else if chars[i] == "-" { while j < chars.count && chars[j] == "-" { j += 1 } }
                else { return false }
                guard j < chars.count, isLowerAlnum(chars[j]) else { return false }
                i = j
            }
            return true
        }
    }

    /// `[a-zA-Z0-9_][a-zA-Z0-9._-]{0,127}`.
    public static func isValidTag(_ tag: String) -> Bool {
        let chars = Array(tag.unicodeScalars)
        guard let first = chars.first, chars.count <= 128, first.isASCII,
              CharacterSet.alphanumerics.contains(first) || first == "_" else { return false }
        return chars.allSatisfy { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "._-".unicodeScalars.contains($0)) }
    }

    private static func isLowerAlnum(_ c: Unicode.Scalar) -> Bool { ("a"..."z").contains(c) || ("0"..."9").contains(c) }

    /// The text with anything after an `@` hidden (it may be a password).
    public static func shown(_ text: String) -> String {
        guard let at = text.firstIndex(of: "@") else { return String(text.prefix(200)) }
        let schemeEnd = text.range(of: "://")?.upperBound ?? text.startIndex
        return schemeEnd < at ? String(text[..<schemeEnd]) + "***@…" : "…"
    }
}
