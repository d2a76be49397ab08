import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import ManashikiCore

/// Everything `BackgroundModelDownloads` does, without `URLSession`: it is compiled and tested
/// on every platform, and the Apple glue only turns delegate calls into calls here and carries
/// out what `Environment` asks (start a task, cancel tasks, call the system's handler).
///
/// * a finished task's file is moved into the store within the delegate call and verified and
///   installed afterwards in background time (`BackgroundInstall`, `BackgroundTime`);
/// * a 403/410/429/5xx from the storage host resolves a fresh URL through the registry and
///   hands the transfer over again, within `maxRetries`;
/// * a task the system cancelled (force-quit, …) or that failed keeps its resume data
///   (`BackgroundRecords`), used by the next `enqueue` of the same artifact;
/// * the system's completion handler is called when this wake's events and their work are done
///   (`BackgroundEventsHandshake`).
final class BackgroundTransfers<Handler: Sendable>: @unchecked Sendable {
    /// What the platform does for the coordinator.
    struct Environment: Sendable {
        /// Starts a download task: from `resumeData` when given, else `request`; stores
        /// `ticket` as its `taskDescription`; not before `notBefore` (`earliestBeginDate`).
        var startTask: @Sendable (_ request: URLRequest, _ resumeData: Data?, _ ticket: BackgroundDownloadTicket, _ notBefore: Date?) -> Void
        /// Cancels the session's tasks with these identifiers.
        var cancelTasks: @Sendable ([Int]) -> Void
        /// Calls the system's completion handlers (on the main thread).
        var releaseHandlers: @Sendable ([Handler]) -> Void
        /// Runs `body` after `seconds`.
        var after: @Sendable (_ seconds: Double, _ body: @escaping @Sendable () -> Void) -> Void
        /// Runs `work` in the background time the system grants (`BackgroundTime.perform`).
        var backgroundTime: @Sendable (_ reason: String, _ work: @escaping @Sendable (_ stop: @escaping @Sendable () -> Bool) -> Void) -> Void
        /// Seconds on a clock that keeps running while the device sleeps.
        var now: @Sendable () -> Double
    }

    /// The settings of one session.
    struct Settings: Sendable {
        var identifier: String
        /// Why the session cannot work, if it cannot (thrown by every `enqueue`).
        var problem: BackgroundSessionError?
        /// Fresh URLs requested (403/410) or retries (429/5xx) per transfer.
        var maxRetries = 3
        /// The resource timeout of the session (`timeoutIntervalForResource`).
        var deadline: TimeInterval = 7 * 86_400
        /// The session token for models that need one, asked when a transfer is enqueued
        /// without one or requeued.
        var sessionToken: (@Sendable (_ modelId: String) async throws -> String?)?
    }

    let client: ManashikiClient
    let settings: Settings
    private let environment: Environment
    private let emit: @Sendable (BackgroundDownloadEvent) -> Void
    private let handshake = Locked(BackgroundEventsHandshake<Handler>())
    private let installs = Locked((running: false, again: false))
    private let openedRecords = Locked<BackgroundRecords?>(nil)
    private let scheduledChecks = Locked<Set<Double>>([])

    init(client: ManashikiClient, settings: Settings, environment: Environment, onEvent: @escaping @Sendable (BackgroundDownloadEvent) -> Void) {
        self.client = client
        self.settings = settings
        self.environment = environment
        emit = onEvent
    }

    /// The session's records in the client's store (opened once).
    func records() throws -> BackgroundRecords {
        try openedRecords.withLock { opened in
            if let opened { return opened }
            let records = try BackgroundRecords(store: client.openStorage(), sessionIdentifier: settings.identifier)
            opened = records
            return records
        }
    }

    // MARK: Enqueue

    /// Resolves the model's signed URL and hands the transfer to the system, continuing from
    /// kept resume data when it can; `tasks` are the session's tasks now.
    func enqueue(_ modelId: String, session token: String?, expecting: ExpectedArtifact?, tasks: [BackgroundSessionLogic.TaskSnapshot]) async throws -> BackgroundEnqueueOutcome {
        if let problem = settings.problem { throw problem }
        let sessionToken: String? = if let token { token } else { try await settings.sessionToken?(modelId) }
        let (request, ticket) = try await client.backgroundDownloadRequest(modelId, session: sessionToken, expecting: expecting)
        let records = try records()
        let record = records.record(modelId)
        switch BackgroundSessionLogic.enqueuePlan(ticket, record: record, tasks: tasks, now: Date()) {
        case .alreadyRunning:
            return .alreadyRunning
        case .installPending:
            scheduleInstalls()
            return .installing
        case .start(let resumeData, let cancelling):
            environment.cancelTasks(cancelling)
            if record != nil { records.discard(modelId) } // used now, superseded, or its URL expired
            if let resumeData, let record {
                environment.startTask(request, resumeData, record.ticket, nil)
                return .resumed
            }
            environment.startTask(request, nil, ticket, nil)
            return .started
        }
    }

    // MARK: Delegate calls

    /// A task event that starts no work (progress, a challenge).
    func taskActivity() {
        let now = environment.now()
        handshake.withLock { $0.taskActivity(now: now) }
    }

    /// `urlSession(_:downloadTask:didFinishDownloadingTo:)`: decides, and adopts the file before
    /// returning (the system deletes `location` afterwards).
    func finished(location: URL, status: Int?, finalURL: URL?, ticket: BackgroundDownloadTicket) {
        taskActivity()
        switch BackgroundSessionLogic.finish(status: status, finalURL: finalURL, ticket: ticket, maxRetries: settings.maxRetries) {
        case .adopt:
            do {
                let records = try records()
                records.discard(ticket.modelId) // an older pending file or resume data of this model
                let name = try BackgroundInstall.adopt(location, for: ticket, into: records.store)
                do {
                    try records.write(.downloaded(ticket, partialName: name))
                } catch {
                    records.store.removePartial(name)
                    throw error
                }
                scheduleInstalls()
            } catch {
                emit(.failed(modelId: ticket.modelId, error: Self.apiError(error, path: location.path)))
            }
        case .requeue(let reason):
            requeue(ticket, reason: reason)
        case .fail(let error):
            emit(.failed(modelId: ticket.modelId, error: error))
        }
    }

    /// `urlSession(_:task:didCompleteWithError:)` with an error.
    func failed(ticket: BackgroundDownloadTicket, failure: BackgroundSessionLogic.TaskFailure) {
        taskActivity()
        let outcome = BackgroundSessionLogic.classify(failure, modelId: ticket.modelId, deadline: settings.deadline)
        let kept: (Data?) -> Bool = { [self] data in
            guard let data, let records = try? records() else { return false }
            return (try? records.write(.resumable(ticket, resumeData: data))) != nil
        }
        switch outcome {
        case .ignored:
            return
        case .interrupted(let reason, let data):
            emit(.interrupted(modelId: ticket.modelId, reason: reason, resumable: kept(data)))
        case .failed(let error, let data):
            _ = kept(data)
            emit(.failed(modelId: ticket.modelId, error: error))
        }
    }

    /// `urlSessionDidFinishEvents(forBackgroundURLSession:)`.
    func eventsDelivered() {
        settle { h, now in h.eventsDelivered(now: now) }
    }

    /// The system's completion handler for this session's events.
    func received(_ handler: Handler) {
        settle { h, now in h.received(handler, now: now) }
    }

    // MARK: Work

    /// Verifies and installs every downloaded file awaiting it, in background time; one run at
    /// a time (a call during a run makes it look again).
    func scheduleInstalls() {
        let start = installs.withLock { state -> Bool in
            if state.running { state.again = true; return false }
            state = (true, false)
            return true
        }
        guard start else { return }
        handshake.withLock { $0.workStarted() }
        environment.backgroundTime("Verifying and installing downloaded models") { [self] stop in
            var more = true
            while more {
                installPending(stop: stop)
                more = installs.withLock { state -> Bool in
                    if state.again { state.again = false; return true }
                    state.running = false
                    return false
                }
            }
            settle { h, now in h.workFinished(now: now) }
        }
    }

    private func installPending(stop: @Sendable () -> Bool) {
        guard let records = try? records() else { return }
        for record in records.all() where record.state == .downloaded {
            guard let name = record.partialName else { continue }
            let id = record.ticket.modelId
            switch BackgroundInstall.install(name, for: record.ticket, in: records.store, stop: stop) {
            case .installed(let model):
                records.remove(id)
                emit(.installed(model))
            case .deferred:
                emit(.installDeferred(modelId: id))
            case .held:
                continue
            case .gone:
                records.remove(id)
                emit(.failed(modelId: id, error: .fileSystem(operation: "verify the downloaded file (it was removed before it was verified: another download took it over, or the store was cleaned); enqueue the model again if it is not installed",
                                                             path: records.store.partialPath(name), code: ENOENT)))
            case .failed(let error):
                records.remove(id)
                emit(.failed(modelId: id, error: error))
            }
        }
    }

    private func requeue(_ ticket: BackgroundDownloadTicket, reason: BackgroundRequeueReason) {
        emit(.requeued(modelId: ticket.modelId, reason: reason))
        handshake.withLock { $0.workStarted() }
        Task { [self] in
            do {
                let token = try await settings.sessionToken?(ticket.modelId)
                let expecting = ExpectedArtifact(sha256: ticket.sha256, size: ticket.size, version: ticket.version)
                let (request, resolved) = try await client.backgroundDownloadRequest(ticket.modelId, session: token, expecting: expecting)
                var fresh = resolved
                fresh.retries = ticket.retries + 1
                environment.startTask(request, nil, fresh, BackgroundSessionLogic.notBefore(reason, retries: ticket.retries, now: Date()))
            } catch {
                emit(.failed(modelId: ticket.modelId, error: Self.apiError(error, path: "")))
            }
            settle { h, now in h.workFinished(now: now) }
        }
    }

    // MARK: Handshake

    /// Applies `body` to the handshake, calls the handlers it releases and schedules the next
    /// check it asks for.
    private func settle(_ body: (inout BackgroundEventsHandshake<Handler>, Double) -> [Handler]) {
        let now = environment.now()
        let (release, next) = handshake.withLock { h -> ([Handler], Double?) in (body(&h, now), h.nextCheck) }
        if !release.isEmpty { environment.releaseHandlers(release) }
        guard let next, scheduledChecks.withLock({ $0.insert(next).inserted }) else { return }
        environment.after(max(0, next - now)) { [weak self] in
            self?.scheduledChecks.withLock { _ = $0.remove(next) }
            self?.settle { h, now in h.tick(now: now) }
        }
    }

    /// Whether installs or requeues are in progress (for tests and `status`).
    var isBusy: Bool { handshake.withLock { $0.isBusy } }

    private static func apiError(_ error: any Error, path: String) -> APIError {
        if let error = error as? APIError { return error }
        if error is CancellationError { return .transport("the request was cancelled") }
        return .fileSystem(operation: "keep the downloaded file", path: path, code: POSIX.errnoCode(of: error))
    }
}
