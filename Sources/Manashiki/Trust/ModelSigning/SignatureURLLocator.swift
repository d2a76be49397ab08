import Foundation

/// Signatures at a URL template (`"signatureURL"`): `{modelId}`, `{version}` and `{sha256}` are
/// replaced, each percent-encoded as one path segment
/// (`https://signatures.example.com/{modelId}/{version}/model.sig`). Fetched with no API key and
/// no `Authorization` (`ManashikiClient.signatureLocator(_:)`).
public struct SignatureURLLocator: PublisherSignatureLocator {
    /// The placeholders a template may hold.
    public static let placeholders = ["{modelId}", "{version}", "{sha256}"]
    /// The most bytes of a signature read (`SigstoreBundle.maximumSize`).
    public static var maximumSize: Int { SigstoreBundle.maximumSize }

    /// The template.
    public let template: String
    /// GETs a URL: the status and at most `maximumSize` bytes of body.
    let fetch: @Sendable (URL) async throws -> (status: Int, body: Data)

    /// A locator for `template` that fetches with `fetch` (a status and body; throwing when the
    /// host cannot be reached).
    public init(template: String, fetch: @escaping @Sendable (URL) async throws -> (status: Int, body: Data)) {
        self.template = template
        self.fetch = fetch
    }

    /// `template` for one artifact, or nil when the result is not a URL.
    public static func url(_ template: String, modelId: String, version: String, sha256: String) -> URL? {
        let segment = CharacterSet.urlPathAllowed.subtracting(CharacterSet(charactersIn: "/?#"))
        func encoded(_ s: String) -> String { s.addingPercentEncoding(withAllowedCharacters: segment) ?? s }
        let text = template.replacingOccurrences(of: "{modelId}", with: encoded(modelId))
            .replacingOccurrences(of: "{version}", with: encoded(version))
            .replacingOccurrences(of: "{sha256}", with: encoded(sha256))
        return URL(string: text)
    }

    /// The signature at the template's URL for `candidate`, or the answer that says there is none.
    public func signatures(for candidate: ArtifactCandidate) async throws -> SignatureSearch {
        guard let url = Self.url(template, modelId: candidate.modelId, version: candidate.version, sha256: candidate.sha256) else {
            return SignatureSearch(tried: ["signatureURL \(template): not a URL for this model"])
        }
        do {
            let (status, body) = try await fetch(url)
            if status == 200 { return SignatureSearch(found: [FoundSignature(origin: url.absoluteString, data: body)]) }
            // A server error or a rate limit may pass: a retry may find the signature.
            return SignatureSearch(tried: ["\(url.absoluteString): HTTP \(status)"], unreachable: status >= 500 || status == 429)
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            return SignatureSearch(tried: ["\(url.absoluteString): \(error)"], unreachable: true)
        }
    }
}

extension ManashikiClient {
    /// Signatures at `template` (`SignatureURLLocator`), fetched through this client's transport
    /// (its CA bundle and proxy settings) with no API key and no `Authorization`; https, or http
    /// to this machine.
    public func signatureLocator(_ template: String) -> SignatureURLLocator {
        SignatureURLLocator(template: template) { [self] url in
            try await transport.fetchDocument(url, allowPlainHTTP: false, idleTimeout: 30, maxBytes: SignatureURLLocator.maximumSize)
        }
    }
}
