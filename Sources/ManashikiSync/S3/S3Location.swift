import Foundation

/// A bucket and a prefix in it, written `s3://bucket/prefix/`: where a bundle lives in object
/// storage, in the same content-addressed layout as a bundle directory or a mirror
/// (`<prefix>index.json`, `<prefix>blobs/sha256/<hex>`).
///
/// The prefix is a folder: `s3://models/site-a` and `s3://models/site-a/` are the same place
/// (`site-a/`); `s3://models` is the bucket's root. Any UTF-8 is allowed in the prefix (keys are
/// encoded byte by byte when signed); `//`, `.` and `..` are kept as written, since S3 keys are
/// not paths.
public struct S3Location: Sendable, Hashable, CustomStringConvertible {
    /// The bucket name.
    public let bucket: String
    /// The key prefix: empty, or ending in `/`.
    public let prefix: String

    /// `s3://bucket/prefix/`.
    public var description: String { "s3://\(bucket)/\(prefix)" }

    /// The key of the bundle index.
    public var indexKey: String { prefix + BundleLayout.indexName }

    /// The key of the blob of `sha256`.
    public func blobKey(_ sha256: String) -> String { prefix + BundleLayout.blobPath(sha256) }

    /// The prefix of every blob key.
    public var blobPrefix: String { prefix + "blobs/sha256/" }

    /// Why a text is not an `s3://` location, and what to write instead.
    public struct Problem: Error, Sendable, Hashable, CustomStringConvertible {
        /// What is wrong.
        public var message: String
        /// What to write.
        public var hint: String
        /// `message — hint`.
        public var description: String { "\(message) — \(hint)" }

        /// A problem.
        package init(message: String, hint: String) {
            self.message = message
            self.hint = hint
        }
    }

    /// Whether `text` is meant as an S3 location (`s3://…`, any letter case).
    public static func isS3URL(_ text: String) -> Bool { text.lowercased().hasPrefix("s3://") }

    /// Parses `s3://bucket[/prefix[/]]`.
    public static func parse(_ text: String) -> Result<S3Location, Problem> {
        let example = "write it like s3://my-models/site-a/"
        guard isS3URL(text) else { return .failure(Problem(message: "\"\(text)\" is not an s3:// URL", hint: example)) }
        let rest = text.dropFirst(5)
        let slash = rest.firstIndex(of: "/") ?? rest.endIndex
        let bucket = String(rest[..<slash])
        var prefix = slash < rest.endIndex ? String(rest[rest.index(after: slash)...]) : ""
        if let problem = bucketProblem(bucket) { return .failure(Problem(message: "s3://\(bucket)/: \(problem)", hint: example)) }
        if prefix.contains("?") || prefix.contains("#") {
            return .failure(Problem(message: "\(text) has a query or fragment", hint: "give the bucket and the prefix only; " + example))
        }
        if prefix.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            return .failure(Problem(message: "the prefix of \(text.debugDescription) has a control character", hint: example))
        }
        if !prefix.isEmpty && !prefix.hasSuffix("/") { prefix += "/" }
        if prefix.utf8.count > 900 { return .failure(Problem(message: "the prefix is longer than 900 bytes", hint: "S3 keys hold at most 1,024 bytes; use a shorter prefix")) }
        return .success(S3Location(bucket: bucket, prefix: prefix))
    }

    /// Why `name` is not a bucket name S3 or a compatible store accepts, or nil. S3's rules
    /// (3–63 lowercase letters, digits, `.` and `-`, starting and ending with a letter or digit),
    /// loosened to let through the upper case and `_` some compatible stores and old
    /// us-east-1 buckets use (those are addressed path-style).
    static func bucketProblem(_ name: String) -> String? {
        if name.isEmpty { return "no bucket name" }
        guard (3...255).contains(name.utf8.count) else { return "a bucket name has 3 to 63 characters" }
        let allowed = name.utf8.allSatisfy { b in
            (b >= 0x61 && b <= 0x7A) || (b >= 0x41 && b <= 0x5A) || (b >= 0x30 && b <= 0x39) || b == 0x2E || b == 0x2D || b == 0x5F
        }
        guard allowed else { return "a bucket name has only lowercase letters, digits, '.' and '-'" }
        guard let first = name.unicodeScalars.first, let last = name.unicodeScalars.last,
              CharacterSet.alphanumerics.contains(first), CharacterSet.alphanumerics.contains(last) else {
            return "a bucket name starts and ends with a letter or a digit"
        }
        return nil
    }

    /// Whether the bucket can be a DNS label under an S3 host (`bucket.s3.region.amazonaws.com`):
    /// S3's strict rules, and no `.` (a dotted name would not match the wildcard certificate).
    var isVirtualHostable: Bool {
        bucket.utf8.count <= 63 && !bucket.contains(".") && !bucket.contains("_") && bucket == bucket.lowercased()
    }

    /// A location.
    public init(bucket: String, prefix: String) {
        self.bucket = bucket
        self.prefix = prefix
    }
}
