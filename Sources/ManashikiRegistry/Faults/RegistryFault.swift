import Foundation

/// A misbehaviour the registry injects into answers, optionally a limited number of times
/// (`count`: "503 twice, then 200").
///
/// ```swift
/// registry.setFault(.status(503, count: 2), modelId: "tiny", endpoint: .storage)
/// registry.setFault(.truncatedBody(keepBytes: 100), modelId: "tiny", endpoint: .storage)
/// ```
///
/// Request-level faults (`rateLimited`, `status`, `error`, `redirect`, `connectionReset`
/// before the head, `expiredURL` on the storage origin) answer instead of the endpoint. Body
/// faults (`truncatedBody`, `corruptByte`, `extraBytes`, `noContentLength`, `slowDrip`,
/// `stall`, `connectionReset` after bytes) damage the endpoint's real answer, whatever it is.
/// These cases are the one description of each fault: `FaultResponses` gives the request-level
/// answers, `ResponseWriter` does the body damage, both from the kind as it is documented here.
/// `ignoreRange`, `replacedObject` and `expireMidBody` apply to the storage origin; `expiredURL`, `wrongDigest`, `missingDigest` and
/// `downloadURL` shape the answer of `GET /api/download`. `tufRollback`, `tufExpired` and
/// `tufMisSigned` apply to `RegistryEndpoint.tufMetadata` (`serve --tuf`): they fire on a
/// request of `timestamp.json`, the first file of every TUF refresh, and that refresh is
/// served the faulty metadata.
public struct RegistryFault: Sendable, Hashable {
    /// What happens.
    public enum Kind: Sendable, Hashable {
        /// `429` with a `rate_limited` error body and the given `Retry-After` (none when nil).
        case rateLimited(retryAfter: RetryAfter?)
        /// The status with an HTML body, as a proxy would answer (typically 5xx).
        case status(Int)
        /// The status with the contract's JSON error body.
        case error(status: Int, code: String, message: String)
        /// The body cut after `keepBytes` (default: half), then the connection closed; the
        /// full `Content-Length` is declared when `declareLength` is true.
        case truncatedBody(keepBytes: Int?, declareLength: Bool)
        /// One byte inverted at `offset` in the artifact (default: the middle of the body sent).
        case corruptByte(offset: Int?)
        /// `count` bytes beyond the real body (nil: endless until the client hangs up).
        /// With `declareLength` the longer `Content-Length` is declared, else close-delimited.
        case extraBytes(count: Int?, declareLength: Bool)
        /// The body without `Content-Length`: chunked, or close-delimited.
        case noContentLength(chunked: Bool)
        /// `chunkBytes` every `intervalMilliseconds`.
        case slowDrip(chunkBytes: Int, intervalMilliseconds: Int)
        /// The head and `afterBytes` of body, then silence until the client gives up.
        case stall(afterBytes: Int)
        /// `Range` ignored: a full `200`.
        case ignoreRange
        /// On `/api/download`: a download URL that has already expired, which the storage
        /// origin answers with `status` (403 or 410). On the storage origin: that answer now.
        case expiredURL(status: Int)
        /// On `/api/download`: a `sha256` that does not match the bytes.
        case wrongDigest
        /// On `/api/download`: `sha256` absent, or `null` when `asNull`.
        case missingDigest(asNull: Bool)
        /// A redirect (`status`, default 302) to `target` instead of the answer.
        case redirect(target: RedirectTarget, status: Int)
        /// On `/api/download`: a `downloadUrl` pointing at `target`.
        case downloadURL(target: RedirectTarget)
        /// A TCP reset: before anything is sent when `afterBytes` is nil, else after the head
        /// and that many body bytes.
        case connectionReset(afterBytes: Int?)
        /// On the storage origin: the real answer with the `ETag` and `Last-Modified` of
        /// another object, as if it had been replaced since the download began.
        case replacedObject
        /// On the storage origin: the body cut after `afterBytes` bytes (full `Content-Length`
        /// declared), and every signed URL issued until then expired (answered 403), as when a
        /// URL expires in the middle of a transfer.
        case expireMidBody(afterBytes: Int)
        /// On `/tuf/metadata/`: `role`'s metadata rolled back, validly signed at version 1, below
        /// every version the registry publishes (a rolled-back snapshot or targets is named by a
        /// new timestamp or snapshot, as a replay with the online keys would be).
        case tufRollback(role: TUFRole)
        /// On `/tuf/metadata/`: `role`'s metadata at a new version, validly signed, but expired
        /// a day ago (a publisher that stopped re-signing).
        case tufExpired(role: TUFRole)
        /// On `/tuf/metadata/`: `role`'s metadata at a new version, signed by a key the root does
        /// not list, or (`modifiedAfterSigning`) signed by the right key and then changed (its
        /// `expires` moved a year on).
        case tufMisSigned(role: TUFRole, modifiedAfterSigning: Bool)
    }

    /// The TUF role a `tufRollback`, `tufExpired` or `tufMisSigned` fault damages.
    public enum TUFRole: String, Sendable, Hashable, CaseIterable {
        /// `timestamp.json`.
        case timestamp
        /// `snapshot.json` (the refresh's timestamp names its version).
        case snapshot
        /// `targets.json` (the refresh's snapshot names its version).
        case targets
    }

    /// Where a redirect or a rewritten download URL points.
    public enum RedirectTarget: Sendable, Hashable {
        /// The same path on another origin of this registry (`localhost` instead of
        /// `127.0.0.1`, same port): reachable, but a different origin.
        case otherOrigin
        /// The same path over plain `http` on a non-loopback host (`example.com`).
        case remoteHTTP
        /// A `file:` URL.
        case file
        /// An explicit absolute URL.
        case url(String)
    }

    /// A `Retry-After` value.
    public enum RetryAfter: Sendable, Hashable {
        /// Delta-seconds.
        case seconds(Int)
        /// An HTTP-date.
        case date(Date)
    }

    /// What happens.
    public var kind: Kind
    /// How many times the fault fires before the endpoint behaves again (nil: every time).
    public var count: Int?

    /// A fault of `kind`, firing `count` times (nil: every time).
    public init(_ kind: Kind, count: Int? = nil) {
        self.kind = kind
        self.count = count
    }

    /// `429` with `Retry-After` (delta-seconds by default; nil sends none).
    public static func rateLimited(retryAfter: RetryAfter? = .seconds(1), count: Int? = nil) -> RegistryFault {
        RegistryFault(.rateLimited(retryAfter: retryAfter), count: count)
    }
    /// The status with an HTML body (a proxy's 5xx).
    public static func status(_ status: Int, count: Int? = nil) -> RegistryFault {
        RegistryFault(.status(status), count: count)
    }
    /// The status with the contract's JSON error body.
    public static func error(status: Int, code: String, message: String = "injected fault", count: Int? = nil) -> RegistryFault {
        RegistryFault(.error(status: status, code: code, message: message), count: count)
    }
    /// The body cut short.
    public static func truncatedBody(keepBytes: Int? = nil, declareLength: Bool = true, count: Int? = nil) -> RegistryFault {
        RegistryFault(.truncatedBody(keepBytes: keepBytes, declareLength: declareLength), count: count)
    }
    /// One byte inverted.
    public static func corruptByte(offset: Int? = nil, count: Int? = nil) -> RegistryFault {
        RegistryFault(.corruptByte(offset: offset), count: count)
    }
    /// Bytes beyond the body (nil: endless).
    public static func extraBytes(_ extra: Int? = nil, declareLength: Bool = false, count: Int? = nil) -> RegistryFault {
        RegistryFault(.extraBytes(count: extra, declareLength: declareLength), count: count)
    }
    /// No `Content-Length`.
    public static func noContentLength(chunked: Bool, count: Int? = nil) -> RegistryFault {
        RegistryFault(.noContentLength(chunked: chunked), count: count)
    }
    /// A slow drip.
    public static func slowDrip(chunkBytes: Int = 1024, intervalMilliseconds: Int = 50, count: Int? = nil) -> RegistryFault {
        RegistryFault(.slowDrip(chunkBytes: chunkBytes, intervalMilliseconds: intervalMilliseconds), count: count)
    }
    /// Headers (and `afterBytes` of body), then silence.
    public static func stall(afterBytes: Int = 0, count: Int? = nil) -> RegistryFault {
        RegistryFault(.stall(afterBytes: afterBytes), count: count)
    }
    /// `Range` ignored.
    public static func ignoreRange(count: Int? = nil) -> RegistryFault { RegistryFault(.ignoreRange, count: count) }
    /// An already-expired download URL (403 or 410).
    public static func expiredURL(status: Int = 403, count: Int? = nil) -> RegistryFault {
        RegistryFault(.expiredURL(status: status), count: count)
    }
    /// A wrong `sha256` in `/api/download`.
    public static func wrongDigest(count: Int? = nil) -> RegistryFault { RegistryFault(.wrongDigest, count: count) }
    /// No `sha256` in `/api/download`.
    public static func missingDigest(asNull: Bool = false, count: Int? = nil) -> RegistryFault {
        RegistryFault(.missingDigest(asNull: asNull), count: count)
    }
    /// A redirect.
    public static func redirect(to target: RedirectTarget, status: Int = 302, count: Int? = nil) -> RegistryFault {
        RegistryFault(.redirect(target: target, status: status), count: count)
    }
    /// A rewritten `downloadUrl`.
    public static func downloadURL(_ target: RedirectTarget, count: Int? = nil) -> RegistryFault {
        RegistryFault(.downloadURL(target: target), count: count)
    }
    /// Another object's `ETag` and `Last-Modified`.
    public static func replacedObject(count: Int? = nil) -> RegistryFault { RegistryFault(.replacedObject, count: count) }
    /// The body cut after `afterBytes`, and every URL signed so far expired.
    public static func expireMidBody(afterBytes: Int, count: Int? = nil) -> RegistryFault {
        RegistryFault(.expireMidBody(afterBytes: afterBytes), count: count)
    }
    /// `role`'s TUF metadata rolled back (version 1).
    public static func tufRollback(_ role: TUFRole, count: Int? = nil) -> RegistryFault {
        RegistryFault(.tufRollback(role: role), count: count)
    }
    /// `role`'s TUF metadata expired a day ago.
    public static func tufExpired(_ role: TUFRole, count: Int? = nil) -> RegistryFault {
        RegistryFault(.tufExpired(role: role), count: count)
    }
    /// `role`'s TUF metadata signed by a wrong key, or changed after signing.
    public static func tufMisSigned(_ role: TUFRole, modifiedAfterSigning: Bool = false, count: Int? = nil) -> RegistryFault {
        RegistryFault(.tufMisSigned(role: role, modifiedAfterSigning: modifiedAfterSigning), count: count)
    }
    /// A TCP reset.
    public static func connectionReset(afterBytes: Int? = nil, count: Int? = nil) -> RegistryFault {
        RegistryFault(.connectionReset(afterBytes: afterBytes), count: count)
    }
}

/// A fault attached to an endpoint, for one model or (modelId nil) every request to it.
public struct RegistryFaultRule: Sendable, Hashable {
    /// The endpoint.
    public var endpoint: RegistryEndpoint
    /// The model, or nil for every model (and endpoints without one).
    public var modelId: String?
    /// The fault; `count` is what remains.
    public var fault: RegistryFault

    /// Creates a rule.
    public init(endpoint: RegistryEndpoint, modelId: String? = nil, fault: RegistryFault) {
        self.endpoint = endpoint
        self.modelId = modelId
        self.fault = fault
    }
}

extension RegistryFault.Kind {
    /// Whether this fault damages TUF metadata (`tufRollback`, `tufExpired`, `tufMisSigned`).
    var isTUF: Bool {
        switch self {
        case .tufRollback, .tufExpired, .tufMisSigned: true
        default: false
        }
    }

    /// Whether the fault means something on `endpoint`: TUF faults on `tufMetadata` only; there,
    /// besides them, the faults that answer instead of `timestamp.json` or damage its body.
    func applies(to endpoint: RegistryEndpoint) -> Bool {
        if isTUF { return endpoint == .tufMetadata }
        guard endpoint == .tufMetadata else { return true }
        switch self {
        case .rateLimited, .status, .error, .redirect, .connectionReset, .truncatedBody, .corruptByte, .extraBytes,
             .noContentLength, .slowDrip, .stall: return true
        default: return false
        }
    }
}
