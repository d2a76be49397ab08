import Foundation

/// Where an update reads a repository's metadata files (`timestamp.json`, `3.root.json`,
/// `5.snapshot.json`): over HTTP (`TUFHTTPSource`) or from a directory (`TUFDirectorySource`,
/// an exported bundle on an offline machine).
public protocol TUFMetadataSource: Sendable {
    /// The file `name`, or nil when the repository does not have it (HTTP 403 or 404, no such
    /// file). Reads at most `maxLength` bytes.
    /// - Throws: `TUFError` with reason `tooLarge` (more than `maxLength` bytes) or
    ///   `unavailable` (anything else that kept it from being read).
    func fetch(_ name: String, maxLength: Int) async throws(TUFError) -> Data?
}

/// Metadata over HTTP(S), through the package's `HTTPTransport` (so the manifest's CA bundle
/// and proxy rules apply), at `baseURL` + name. The transport never follows redirects; a
/// redirect is `unavailable`, like any answer but 200, 403 and 404. Each file arrives within
/// `documentLimits` (TUF's slow-retrieval attack: a drip is `unavailable`, naming the limit).
public struct TUFHTTPSource: TUFMetadataSource {
    /// The metadata URL, ending in `/`.
    public let baseURL: URL
    let transport: any HTTPTransport
    let idleTimeout: TimeInterval
    /// How long and how slowly a metadata file may arrive (`DocumentLimits.default`).
    let documentLimits: DocumentLimits

    /// A source reading `baseURL` (a trailing `/` is added if missing) with `transport`.
    public init(baseURL: URL, transport: any HTTPTransport = DefaultTransport(), idleTimeout: TimeInterval = 30,
                documentLimits: DocumentLimits = .default) {
        let text = baseURL.absoluteString
        self.baseURL = text.hasSuffix("/") ? baseURL : URL(string: text + "/") ?? baseURL
        self.transport = transport
        self.idleTimeout = idleTimeout
        self.documentLimits = documentLimits
    }

    public func fetch(_ name: String, maxLength: Int) async throws(TUFError) -> Data? {
        let role = TUFTrustedSet.roleName(ofFile: name)
        guard let url = URL(string: baseURL.absoluteString + name) else {
            throw TUFError(role: role, reason: .unavailable("\(name) makes no URL with \(baseURL.absoluteString)"))
        }
        let collector = BoundedBody(limit: maxLength)
        do {
            try await transport.streamDocument(HTTPRequest(url: url, idleTimeout: idleTimeout, maxBufferedBodyBytes: maxLength,
                                                           documentLimits: documentLimits), to: collector)
        } catch let error as BoundedBody.Overflow {
            _ = error
            throw TUFError(role: role, reason: .tooLarge(limit: maxLength))
        } catch {
            throw TUFError(role: role, reason: .unavailable("\(url.absoluteString): \(error.localizedDescription)"))
        }
        let status = collector.status
        if status == 403 || status == 404 { return nil }
        guard status == 200 else { throw TUFError(role: role, reason: .unavailable("\(url.absoluteString) answered HTTP \(status)")) }
        return collector.body
    }
}

/// Collects a body up to a limit, refusing a larger one as soon as its `Content-Length` or its
/// bytes say so.
final class BoundedBody: HTTPBodyConsumer, @unchecked Sendable {
    struct Overflow: Error {}
    private let limit: Int
    private(set) var status = 0
    private(set) var body = Data()

    init(limit: Int) { self.limit = limit }

    func receive(head: HTTPResponseHead) async throws {
        status = head.status
        // Only a 200's body is kept: the length of an error page does not matter.
        if status == 200, let length = head.contentLength, length > Int64(limit) { throw Overflow() }
    }

    func receive(chunk: Data) async throws {
        guard status == 200 else { return }
        guard body.count + chunk.count <= limit else { throw Overflow() }
        body.append(chunk)
    }
}

/// Metadata files in a directory: an exported bundle's `tuf/` folder on an offline machine.
public struct TUFDirectorySource: TUFMetadataSource {
    /// The directory.
    public let directory: URL

    /// A source reading `directory`.
    public init(directory: URL) { self.directory = directory }

    public func fetch(_ name: String, maxLength: Int) async throws(TUFError) -> Data? {
        let url = directory.appendingPathComponent(name)
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        guard let data = TUFMetadataStore.readBounded(url, maxLength: maxLength) else {
            throw TUFError(role: TUFTrustedSet.roleName(ofFile: name), reason: .tooLarge(limit: maxLength))
        }
        return data
    }
}
