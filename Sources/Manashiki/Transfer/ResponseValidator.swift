import Foundation

/// The one check of the storage host's answer to a part's request: the status, the
/// `Content-Range` against the bytes asked for, the size against the expected one, and the
/// object's identity (`ETag`, `Last-Modified`, total size) against the first answer of the
/// transfer, so no part mixes bytes of two versions of an object.
struct ResponseValidator: Sendable {
    /// What identifies the object across answers.
    struct Identity: Sendable, Equatable {
        var etag: String?
        var lastModified: String?
        var total: Int64?

        /// Why `other` is not the same object, or nil. A value one side lacks is not compared.
        func difference(from other: Identity) -> String? {
            if let a = etag, let b = other.etag, a != b { return "its ETag changed from \(a) to \(b)" }
            if let a = lastModified, let b = other.lastModified, a != b { return "its Last-Modified changed from \(a) to \(b)" }
            if let a = total, let b = other.total, a != b { return "its size changed from \(a) to \(b) bytes" }
            return nil
        }
    }

    /// What the body of an accepted answer is.
    enum Body: Equatable {
        /// Bytes from the offset asked for (a 206, or a 200 to a request from byte 0);
        /// `total` is the object's size when the host declared it.
        case fromRequestedOffset(total: Int64?)
        /// The whole object from byte 0 (a 200 to a `Range` request).
        case wholeObject(total: Int64?)
    }

    /// The artifact's size, when known in advance.
    let expectedSize: Int64?

    /// Checks `head`, the answer to a request for bytes from `start` (`ranged`: a `Range`
    /// header was sent).
    /// - Throws: `StorageSignal` for answers the transfer handles (redirect, expiry, 416,
    ///   a range other than asked), `APIError` for the others.
    func check(_ head: HTTPResponseHead, start: Int64, ranged: Bool) throws -> (Body, Identity) {
        var identity = Identity(etag: head.headers["ETag"], lastModified: head.headers["Last-Modified"], total: nil)
        switch head.status {
        case 200:
            try checkDeclared(head.contentLength)
            identity.total = head.contentLength
            return (ranged ? .wholeObject(total: head.contentLength) : .fromRequestedOffset(total: head.contentLength), identity)
        case 206:
            guard let range = ContentRange(head.headers["Content-Range"]), range.start == start else {
                throw StorageSignal.restartFromZero
            }
            if let total = range.total, let expectedSize {
                if total > expectedSize { throw APIError.bodyTooLong(expected: expectedSize) }
                if total < expectedSize { throw APIError.bodyTooShort(expected: expectedSize, received: total) }
            }
            identity.total = range.total
            return (.fromRequestedOffset(total: range.total), identity)
        case 416:
            throw StorageSignal.rangeNotSatisfiable
        case let status where RedirectPolicy.isRedirect(status):
            throw StorageSignal.redirect(status: status, location: head.headers["Location"])
        case 403, 410:
            throw StorageSignal.expired(status: head.status)
        case 429:
            throw APIError.rateLimited(retryAfter: RetryAfter.seconds(from: head.headers["Retry-After"]))
        case 500..<600:
            throw APIError.server(status: head.status, message: "from the storage host")
        default:
            throw APIError.unexpectedStatus(status: head.status, message: "from the storage host")
        }
    }

    private func checkDeclared(_ length: Int64?) throws {
        guard let expectedSize, let length else { return }
        if length > expectedSize { throw APIError.bodyTooLong(expected: expectedSize) }
        if length < expectedSize { throw APIError.bodyTooShort(expected: expectedSize, received: length) }
    }
}
