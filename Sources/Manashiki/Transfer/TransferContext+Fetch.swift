import Foundation

extension TransferContext {
    /// Fetches parts until none is left for this connection.
    func runConnection(splitting: Bool) async throws {
        while let part = scheduler.next(splitting: splitting && !rangesIgnored) {
            try await fetch(part)
        }
    }

    /// Fetches `part` until its end (which may move closer while it runs): one request, then
    /// more from where the last one stopped after an interruption (a redirect, an expired URL,
    /// a network failure, a 5xx, a body cut short, a storage host's 429), within the budgets
    /// of `DownloadOptions`. Returns when the part is written or was given up to other parts.
    func fetch(_ first: PartScheduler.Part) async throws {
        var part = first
        var cursor = part.start
        var (url, generation) = await location.current()
        var redirects = 0, resumes = 0, progressMark = cursor
        let policy = RedirectPolicy.storage(maxHops: options.maxRedirects, allowingPlainHTTP: location.allowsPlainHTTP)
        while true {
            let end = scheduler.end(of: part.id)
            if let end, cursor >= end { return scheduler.finish(part.id) }
            try Task.checkCancellation()
            if let deadline, deadline.hasPassed { throw ManashikiClient.deadlineError(modelId, options) }
            let (request, ranged) = self.request(url, from: cursor, to: end, total: scheduler.total)
            let receiver = PartReceiver(self, part: part, from: cursor, ranged: ranged)
            do {
                let consumer: any HTTPBodyConsumer = options.rateLimiter.map { RateLimitedConsumer(receiver, limiter: $0) } ?? receiver
                try await ManashikiClient.stream(request, to: consumer, over: transport, until: deadline?.uptimeNanoseconds)
                try await receiver.flush()
                (part, cursor) = (receiver.part, receiver.written)
                try checkComplete(receiver)
                return scheduler.finish(part.id, endReached: true)
            } catch let signal as StorageSignal {
                try await receiver.flush()
                (part, cursor) = (receiver.part, receiver.written)
                switch signal {
                case .redirect(let status, let location):
                    redirects += 1
                    url = try policy.next(status: status, location: location, from: url, hop: redirects)
                case .expired(let status):
                    (url, generation) = try await location.refreshed(after: generation, status: status)
                    redirects = 0
                    // Without a digest nothing proves the fresh URL serves the same artifact, so
                    // the bytes already on disk cannot be trusted as its prefix.
                    if !digestKnown, let whole = try await startOver(from: part.id) { (part, cursor) = (whole, 0) }
                case .restartFromZero, .rangeNotSatisfiable:
                    if case .rangeNotSatisfiable = signal, scheduler.isComplete { return scheduler.finish(part.id) }
                    guard let whole = try await startOver(from: part.id) else {
                        scheduler.release(part.id)
                        throw TransferRestart.objectChanged("it did not serve bytes \(cursor)… as asked")
                    }
                    (part, cursor) = (whole, 0)
                    resumes += 1
                    guard resumes <= options.maxResumes else {
                        throw APIError.transport("the storage host did not serve the requested byte range")
                    }
                case .rangeIgnored:
                    return scheduler.release(part.id)
                case .partEnded:
                    return scheduler.finish(part.id)
                case .deadlinePassed:
                    throw ManashikiClient.deadlineError(modelId, options)
                }
            } catch APIError.rateLimited(let retryAfter) {
                // The storage host (a CDN) is throttling: wait as long as it asks (at most
                // `maxStorageRetryAfter`) and continue with Range, within the resume budget;
                // beyond it the caller gets `rateLimited` and the bytes are kept.
                try await receiver.flush()
                (part, cursor) = (receiver.part, receiver.written)
                resumes += 1
                guard resumes <= options.maxResumes, retryAfter.map({ Double($0) <= ManashikiClient.maxStorageRetryAfter }) ?? true else {
                    throw APIError.rateLimited(retryAfter: retryAfter)
                }
                try await deadline.pause(retryAfter.map(Double.init) ?? options.resumeBackoff, orThrow: ManashikiClient.deadlineError(modelId, options))
            } catch let error as APIError where ManashikiClient.isResumable(error) {
                try await receiver.flush()
                (part, cursor) = (receiver.part, receiver.written)
                // The budget counts resumptions without progress (less than 1 MiB since the
                // last one): a link that drops every few minutes still finishes as long as
                // bytes keep arriving, one that dribbles a few bytes per attempt does not.
                if cursor - progressMark >= ManashikiClient.meaningfulProgress { resumes = 0 }
                progressMark = cursor
                resumes += 1
                guard resumes <= options.maxResumes else { throw error }
                let backoff = Backoff(base: .seconds(options.resumeBackoff), cap: .seconds(4))
                try await deadline.pause(backoff.delay(after: resumes).timeInterval, orThrow: ManashikiClient.deadlineError(modelId, options))
            } catch {
                try? await receiver.flush() // what arrived is kept too
                throw error
            }
        }
    }

    /// The request for bytes `start..<end` (`end` nil or the total: to the end). A request
    /// from byte 0 for the whole artifact has no `Range` unless parts may run in parallel.
    private func request(_ url: URL, from start: Int64, to end: Int64?, total: Int64?) -> (HTTPRequest, ranged: Bool) {
        var headers: HTTPHeaders = ["User-Agent": ManashikiClient.userAgent, "Accept-Encoding": "identity"]
        if let end, end != total {
            headers["Range"] = "bytes=\(start)-\(end - 1)"
        } else if start > 0 || parallel {
            headers["Range"] = "bytes=\(start)-"
        }
        // No X-API-Key and no Authorization: the storage host gets neither (CONTRACT §3).
        let request = HTTPRequest(url: url, headers: headers, idleTimeout: options.idleTimeout,
                                  onWaitingForConnectivity: options.onWaitingForNetwork)
        return (request, headers["Range"] != nil)
    }

    /// After an answer's body ended: the part must be whole.
    /// - Throws: `APIError.bodyTooShort` (resumable) when it is not.
    private func checkComplete(_ receiver: PartReceiver) throws {
        let total = scheduler.total ?? receiver.declaredTotal
        if let end = scheduler.end(of: receiver.part.id) ?? total, receiver.written < end {
            throw APIError.bodyTooShort(expected: total ?? end, received: progress.written)
        }
    }
}
