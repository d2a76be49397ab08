import Foundation

extension TransferContext {
    /// Fetches parts until none is left for this connection, or more connections run than
    /// the controller wants (checked between parts).
    /// The connection is counted in the ledger by whoever started it (`ArtifactTransfer`).
    func runConnection() async throws {
        while true {
            if ledger.retires() { return }
            guard let part = ledger.next(splitting: ledger.splitting, alone: ledger.wantsOne) else { break }
            await ledger.recordInOrderIfPrefix(before: part, truncate: sink.truncate(to:))
            do { try await fetch(part) } catch {
                ledger.connectionEnded()
                throw error
            }
        }
        ledger.connectionEnded()
    }

    /// Where one part's fetch stands between its requests.
    struct PartFetch {
        var part: TransferLedger.Part
        var cursor: Int64
        var url: URL
        var generation: Int
        var redirects = 0
        var resumes = 0
        var progressMark: Int64

        /// Continues after what `receiver` wrote.
        mutating func take(_ receiver: PartReceiver) { (part, cursor) = (receiver.part, receiver.written) }
    }

    /// Fetches `part` until its end (which may move closer while it runs): one request, then
    /// more from where the last one stopped after an interruption (a redirect, an expired URL,
    /// a network failure, a 5xx, a body cut short, a storage host's 429), within the budgets
    /// of `DownloadOptions`. Returns when the part is written or was given up to other parts.
    func fetch(_ first: TransferLedger.Part) async throws {
        let (url, generation) = await location.current()
        var f = PartFetch(part: first, cursor: first.start, url: url, generation: generation, progressMark: first.start)
        while true {
            let end = ledger.end(of: f.part.id)
            if let end, f.cursor >= end { return ledger.finish(f.part.id) }
            try Task.checkCancellation()
            if let deadline, deadline.hasPassed { throw deadlineError }
            var (request, ranged) = self.request(f.url, from: f.cursor, to: end, total: ledger.total)
            if let sign = location.sign { request = try await sign(request) }
            let receiver = PartReceiver(self, part: f.part, from: f.cursor, ranged: ranged)
            do {
                let consumer: any HTTPBodyConsumer = options.rateLimiter.map { RateLimitedConsumer(receiver, limiter: $0) } ?? receiver
                try await Self.stream(request, to: consumer, over: transport, until: deadline?.uptimeNanoseconds)
                f.take(receiver)
                try checkComplete(receiver)
                return ledger.finish(f.part.id, endReached: true)
            } catch let signal as StorageSignal {
                f.take(receiver)
                if try await handle(signal, &f) { return }
            } catch APIError.rateLimited(let retryAfter) {
                ledger.throttled()
                // The storage host (a CDN) is throttling: wait as long as it asks (at most
                // `maxStorageRetryAfter`) and continue with Range, within the resume budget;
                // beyond it the caller gets `rateLimited` and the bytes are kept.
                f.take(receiver)
                f.resumes += 1
                guard f.resumes <= options.maxResumes, retryAfter.map({ Double($0) <= ArtifactDownloader.maxStorageRetryAfter }) ?? true else {
                    throw APIError.rateLimited(retryAfter: retryAfter)
                }
                try await deadline.pause(retryAfter.map(Double.init) ?? options.resumeBackoff, orThrow: deadlineError)
            } catch let error as APIError where ArtifactDownloader.isResumable(error) {
                if case .server(503, _) = error { ledger.throttled() }
                f.take(receiver)
                // The budget counts resumptions without progress (less than 1 MiB since the
                // last one): a link that drops every few minutes still finishes as long as
                // bytes keep arriving, one that dribbles a few bytes per attempt does not.
                if f.cursor - f.progressMark >= ArtifactDownloader.meaningfulProgress { f.resumes = 0 }
                f.progressMark = f.cursor
                f.resumes += 1
                guard f.resumes <= options.maxResumes else { throw error }
                let backoff = Backoff(base: .seconds(options.resumeBackoff), cap: ArtifactDownloader.maxResumeBackoff)
                try await deadline.pause(backoff.delay(after: f.resumes).timeInterval, orThrow: deadlineError)
            }
        }
    }

    private var deadlineError: APIError { ArtifactDownloader.deadlineError(modelId, options) }

    /// Acts on a storage answer that stopped a request; returns whether the part is done
    /// (written, or given up to other parts).
    /// - Throws: `TransferRestart` when the bytes on disk cannot be used with what the host
    ///   serves now (handled once by `ArtifactTransfer`, which stops every part first).
    private func handle(_ signal: StorageSignal, _ f: inout PartFetch) async throws -> Bool {
        switch signal {
        case .redirect(let status, let location):
            f.redirects += 1
            let policy = RedirectPolicy.storage(maxHops: options.maxRedirects, allowingPlainHTTP: self.location.allowsPlainHTTP)
            f.url = try policy.next(status: status, location: location, from: f.url, hop: f.redirects)
        case .expired(let status):
            (f.url, f.generation) = try await location.refreshed(after: f.generation, status: status)
            f.redirects = 0
            // Without a digest nothing proves the fresh URL serves the same artifact, so
            // the bytes already on disk cannot be trusted as its prefix.
            if !digestKnown, !ledger.written.isEmpty { throw TransferRestart(reason: .unprovenURL) }
        case .restartFromZero, .rangeNotSatisfiable:
            if case .rangeNotSatisfiable = signal, ledger.isComplete {
                ledger.finish(f.part.id)
                return true
            }
            throw TransferRestart(reason: .rangeRefused)
        case .rangeIgnored:
            ledger.release(f.part.id)
            return true
        case .partEnded:
            ledger.finish(f.part.id)
            return true
        case .deadlinePassed:
            throw deadlineError
        }
        return false
    }

    /// The request for bytes `start..<end`: bounded (`bytes=a-b`) when it ends before the
    /// total or parts may run in parallel, else to the end (`bytes=a-`); a request from byte 0
    /// for the whole artifact of one stream has no `Range`.
    private func request(_ url: URL, from start: Int64, to end: Int64?, total: Int64?) -> (HTTPRequest, ranged: Bool) {
        var headers: HTTPHeaders = ["User-Agent": ManashikiClient.userAgent, "Accept-Encoding": "identity"]
        if let end, end != total || parallel {
            headers["Range"] = "bytes=\(start)-\(end - 1)"
        } else if start > 0 || parallel {
            headers["Range"] = "bytes=\(start)-"
        }
        // No X-API-Key and no Authorization: the storage host gets neither (CONTRACT §3); a
        // location's signer may add its own credentials for its own host (ArtifactLocation.sign).
        let request = HTTPRequest(url: url, headers: headers, idleTimeout: options.idleTimeout,
                                  onWaitingForConnectivity: options.onWaitingForNetwork)
        return (request, headers["Range"] != nil)
    }

    /// After an answer's body ended: the part must be whole.
    /// - Throws: `APIError.bodyTooShort` (resumable) when it is not.
    private func checkComplete(_ receiver: PartReceiver) throws {
        let total = ledger.total ?? receiver.declaredTotal
        if let end = ledger.end(of: receiver.part.id) ?? total, receiver.written < end {
            throw APIError.bodyTooShort(expected: total ?? end, received: ledger.written.count)
        }
    }

    /// Streams one request, stopped when `deadline` (uptime nanoseconds) passes whatever the
    /// transfer is doing (a stalled connection included): the transfer task is cancelled and
    /// `StorageSignal.deadlinePassed` thrown.
    private static func stream(_ request: HTTPRequest, to writer: any HTTPBodyConsumer, over transport: any HTTPTransport,
                               until deadline: UInt64?) async throws {
        guard let deadline else { return try await transport.stream(request, to: writer) }
        try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                try await transport.stream(request, to: writer)
                return true
            }
            group.addTask {
                let now = DispatchTime.now().uptimeNanoseconds
                if now < deadline { try await Task.sleep(nanoseconds: deadline - now) }
                return false
            }
            defer { group.cancelAll() }
            guard let finished = try await group.next(), finished else { throw StorageSignal.deadlinePassed }
        }
    }
}
