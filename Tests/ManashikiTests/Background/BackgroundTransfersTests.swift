import Foundation
import Testing
@testable import Manashiki
import ManashikiTestSupport
import ManashikiCore

/// The platform under `BackgroundTransfers`, as a test drives it: tasks started and cancelled
/// are recorded, the system's handlers released are recorded, timers and background time run
/// when the test says, and the clock is the test's.
final class FakeSystem: @unchecked Sendable {
    struct Started: Equatable {
        var url: URL?
        var resumeData: Data?
        var ticket: BackgroundDownloadTicket
        var notBefore: Date?
    }

    private let state = Locked((started: [Started](), cancelled: [[Int]](), released: [Int](), timers: [(at: Double, body: @Sendable () -> Void)](),
                                work: [@Sendable (@escaping @Sendable () -> Bool) -> Void](), now: 0.0, events: [BackgroundDownloadEvent]()))

    var started: [Started] { state.withLock { $0.started } }
    var cancelled: [[Int]] { state.withLock { $0.cancelled } }
    var released: [Int] { state.withLock { $0.released } }
    var events: [BackgroundDownloadEvent] { state.withLock { $0.events } }
    /// Background work handed to the "system", not run yet.
    var pendingWork: Int { state.withLock { $0.work.count } }

    func record(_ event: BackgroundDownloadEvent) { state.withLock { $0.events.append(event) } }

    var environment: BackgroundTransfers<Int>.Environment {
        .init(
            startTask: { [self] request, resume, ticket, notBefore in
                state.withLock { $0.started.append(Started(url: request.url, resumeData: resume, ticket: ticket, notBefore: notBefore)) }
            },
            cancelTasks: { [self] ids in state.withLock { $0.cancelled.append(ids) } },
            releaseHandlers: { [self] handlers in state.withLock { $0.released += handlers } },
            after: { [self] seconds, body in state.withLock { $0.timers.append((at: $0.now + seconds, body: body)) } },
            backgroundTime: { [self] _, work in state.withLock { $0.work.append(work) } },
            now: { [self] in state.withLock { $0.now } })
    }

    /// Moves the clock to `time` and fires the timers that are due.
    func advance(to time: Double) {
        let due = state.withLock { s -> [@Sendable () -> Void] in
            s.now = time
            let fire = s.timers.filter { $0.at <= time }.map(\.body)
            s.timers.removeAll { $0.at <= time }
            return fire
        }
        for body in due { body() }
    }

    /// Runs the pending background work; `stop` is what the system's expiry says.
    func runWork(stop: @escaping @Sendable () -> Bool = { false }) {
        let work = state.withLock { s -> [@Sendable (@escaping @Sendable () -> Bool) -> Void] in
            defer { s.work.removeAll() }
            return s.work
        }
        for w in work { w(stop) }
    }
}

/// A scripted registry (with a storage host the system would talk to) and a store.
struct BackgroundFixture {
    let dir = ScratchDirectory()
    let scripted = ScriptedStorage(size: 9 << 20 | 77)
    let system = FakeSystem()

    func transfers(identifier: String = "com.acme.app.manashiki.background", problem: BackgroundSessionError? = nil,
                   sessionToken: (@Sendable (String) async throws -> String?)? = nil) throws -> (BackgroundTransfers<Int>, MockTransport) {
        let (client, mock) = try makeClient(storage: dir.url, scripted.handler)
        var settings = BackgroundTransfers<Int>.Settings(identifier: identifier)
        settings.problem = problem
        settings.sessionToken = sessionToken
        let system = system
        return (BackgroundTransfers(client: client, settings: settings, environment: system.environment, onEvent: { system.record($0) }), mock)
    }

    /// What the system would have downloaded, at a location of its own.
    func handOver(_ data: Data) throws -> URL {
        let location = dir.file("system-tmp-\(UUID().uuidString).download")
        try data.write(to: location)
        return location
    }

    func ticket(_ client: BackgroundTransfers<Int>) async throws -> BackgroundDownloadTicket {
        try await client.client.backgroundDownloadRequest("tiny").ticket
    }

    var installed: URL { dir.file("tiny.bin") }
    var partials: [String] { PartialFolder.names(in: dir.url).filter { $0.hasSuffix(".partial") } }

    func apiRequests(_ mock: MockTransport) -> Int { mock.requests.filter { $0.url.host == "models.example.test" }.count }
}

@Suite("Background transfers: the coordinator under the Apple glue")
struct BackgroundTransfersTests {
    let f = BackgroundFixture()

    // MARK: Point 6: moved out within the delegate call, verified afterwards

    @Test("a finished file is moved into the partial folder before the delegate call returns, and installed only after it verifies")
    func adoptThenInstall() async throws {
        let (transfers, _) = try f.transfers()
        let ticket = try await f.ticket(transfers)
        let location = try f.handOver(f.scripted.artifact)
        transfers.finished(location: location, status: 200, finalURL: URL(string: f.scripted.downloadURL), ticket: ticket)
        // The delegate call returned: the system's file is gone (moved, not copied), nothing is
        // under the final name, and a record says a file awaits verification.
        #expect(!FileManager.default.fileExists(atPath: location.path))
        #expect(!FileManager.default.fileExists(atPath: f.installed.path))
        #expect(f.partials.count == 1)
        #expect(try transfers.records().record("tiny")?.state == .downloaded)
        #expect(f.system.pendingWork == 1)
        #expect(transfers.isBusy)
        f.system.runWork()
        #expect(try Data(contentsOf: f.installed) == f.scripted.artifact)
        guard case .installed(let model)? = f.system.events.last else { Issue.record("\(f.system.events)"); return }
        #expect(model.verified && model.sha256 == f.scripted.sha)
        #expect(f.partials.isEmpty)
        #expect(try transfers.records().record("tiny") == nil)
        #expect(!transfers.isBusy)
    }

    @Test("background time that runs out mid-hash defers the install: kept as a partial, never under <id>.bin, finished at the next launch")
    func deferredByExpiry() async throws {
        let previous = Data("previous verified model".utf8)
        try previous.write(to: f.installed)
        let (transfers, _) = try f.transfers()
        let ticket = try await f.ticket(transfers)
        transfers.finished(location: try f.handOver(f.scripted.artifact), status: 200, finalURL: nil, ticket: ticket)
        // The system lets one 4 MiB block through, then says the process is about to be suspended.
        let checks = Locked(0)
        f.system.runWork(stop: { checks.withLock { $0 += 1; return $0 > 1 } })
        #expect(f.system.events == [.installDeferred(modelId: "tiny")])
        #expect(try Data(contentsOf: f.installed) == previous)
        #expect(f.partials.count == 1)
        #expect(!transfers.isBusy)

        // The next launch: a new session object over the same store finishes it.
        let (relaunched, _) = try f.transfers()
        relaunched.scheduleInstalls()
        f.system.runWork()
        #expect(try Data(contentsOf: f.installed) == f.scripted.artifact)
        #expect(f.partials.isEmpty)
        guard case .installed? = f.system.events.last else { Issue.record("\(f.system.events)"); return }
    }

    @Test("when the system grants no time at all, every pending file is reported deferred and nothing is installed")
    func noTimeGranted() async throws {
        let (transfers, _) = try f.transfers()
        transfers.finished(location: try f.handOver(f.scripted.artifact), status: 200, finalURL: nil, ticket: try await f.ticket(transfers))
        f.system.runWork(stop: { true })
        #expect(f.system.events == [.installDeferred(modelId: "tiny")])
        #expect(!FileManager.default.fileExists(atPath: f.installed.path))
    }

    @Test("a file that does not verify is removed and reported; the installed file stays byte for byte", arguments: [true, false])
    func damaged(flipByte: Bool) async throws {
        let previous = Data("previous verified model".utf8)
        try previous.write(to: f.installed)
        let (transfers, _) = try f.transfers()
        var bytes = f.scripted.artifact
        if flipByte { bytes[bytes.count / 2] ^= 1 } else { bytes.removeLast() }
        transfers.finished(location: try f.handOver(bytes), status: 200, finalURL: nil, ticket: try await f.ticket(transfers))
        f.system.runWork()
        let error: APIError? = if case .failed(_, let e)? = f.system.events.last { e } else { nil }
        if flipByte {
            guard case .integrityMismatch? = error else { Issue.record("\(f.system.events)"); return }
        } else {
            // Cut short: refused at once, inside the delegate call, before anything is moved.
            guard case .bodyTooShort? = error else { Issue.record("\(f.system.events)"); return }
        }
        #expect(try Data(contentsOf: f.installed) == previous)
        #expect(f.partials.isEmpty)
        #expect(try transfers.records().all().isEmpty)
    }

    @Test("a foreground download of the model takes over a deferred background file: no byte is fetched again")
    func foregroundTakesOver() async throws {
        let (transfers, mock) = try f.transfers()
        transfers.finished(location: try f.handOver(f.scripted.artifact), status: 200, finalURL: nil, ticket: try await f.ticket(transfers))
        f.system.runWork(stop: { true })
        var options = DownloadOptions()
        let kept = Locked<Int64>(0)
        options.onResume = { bytes in kept.withLock { $0 = bytes } }
        let model = try await transfers.client.downloadModel("tiny", session: nil, expecting: nil, options: options)
        #expect(model.sha256 == f.scripted.sha)
        #expect(kept.current == Int64(f.scripted.artifact.count))
        #expect(mock.requests.allSatisfy { $0.url.host == "models.example.test" })
        // The background record is dropped when its file is gone.
        transfers.scheduleInstalls()
        f.system.runWork()
        guard case .failed(_, .fileSystem(_, _, let code))? = f.system.events.last else { Issue.record("\(f.system.events)"); return }
        #expect(code == ENOENT)
        #expect(try transfers.records().all().isEmpty)
    }

    // MARK: Point 4: an expired URL is resolved again

    @Test("a 403 from the storage host resolves a fresh URL through the registry and hands the transfer over again; the error page is never installed", arguments: [403, 410])
    func expiredURL(status: Int) async throws {
        let (transfers, mock) = try f.transfers()
        let ticket = try await f.ticket(transfers)
        let before = f.apiRequests(mock)
        transfers.finished(location: try f.handOver(Data("<Error>AccessDenied</Error>".utf8)), status: status, finalURL: nil, ticket: ticket)
        #expect(f.system.events == [.requeued(modelId: "tiny", reason: .urlExpired(status: status))])
        try await waitUntil { f.system.started.count == 1 }
        #expect(f.apiRequests(mock) == before + 1)
        let started = try #require(f.system.started.first)
        #expect(started.ticket.retries == 1 && started.ticket.isSameArtifact(as: ticket))
        #expect(started.resumeData == nil && started.notBefore == nil)
        #expect(started.url?.absoluteString == f.scripted.downloadURL)
        #expect(!FileManager.default.fileExists(atPath: f.installed.path))
        #expect(f.partials.isEmpty)
        try await waitUntil { !transfers.isBusy }
    }

    @Test("a busy storage host (503) is retried after a backoff; the budget, once spent, fails the transfer with the status")
    func retryBudget() async throws {
        let (transfers, _) = try f.transfers()
        var ticket = try await f.ticket(transfers)
        let before = Date()
        transfers.finished(location: try f.handOver(Data()), status: 503, finalURL: nil, ticket: ticket)
        try await waitUntil { f.system.started.count == 1 }
        let after = Date()
        let notBefore = try #require(f.system.started.first?.notBefore)
        #expect(notBefore >= before.addingTimeInterval(30) && notBefore <= after.addingTimeInterval(30))
        ticket.retries = 3
        transfers.finished(location: try f.handOver(Data()), status: 503, finalURL: nil, ticket: ticket)
        guard case .failed(_, .server(503, _))? = f.system.events.last else { Issue.record("\(f.system.events)"); return }
        #expect(f.system.started.count == 1)
    }

    @Test("a requeue asks the app for the model's session token and sends it to the registry only")
    func requeueWithSession() async throws {
        let (transfers, mock) = try f.transfers(sessionToken: { _ in "mks_session_token_abcdefgh" })
        transfers.finished(location: try f.handOver(Data()), status: 403, finalURL: nil, ticket: try await f.ticket(transfers))
        try await waitUntil { f.system.started.count == 1 }
        let api = mock.requests.filter { $0.url.host == "models.example.test" }
        #expect(api.last?.headers["Authorization"] == "Bearer mks_session_token_abcdefgh")
        #expect(!(f.system.started.first?.ticket.taskDescription.contains("mks_session") ?? true))
    }

    // MARK: Point 3: force-quit, resume data

    @Test("a force-quit is an interruption with its resume data kept beside the partials; the next enqueue continues from it")
    func forceQuitResumes() async throws {
        let (transfers, _) = try f.transfers()
        var ticket = try await f.ticket(transfers)
        ticket.urlExpiresAt = Date().addingTimeInterval(600)
        let resumeData = Data("opaque resume data".utf8)
        let failure = BackgroundSessionLogic.TaskFailure(kind: .cancelled, cancelledReason: .userForceQuit, resumeData: resumeData,
                                                         error: .transport("the request to cdn.example.test was cancelled"))
        transfers.failed(ticket: ticket, failure: failure)
        #expect(f.system.events == [.interrupted(modelId: "tiny", reason: .userForceQuit, resumable: true)])
        #expect(try transfers.records().record("tiny")?.resumeData == resumeData)
        #expect(try await transfers.enqueue("tiny", session: nil, expecting: nil, tasks: []) == .resumed)
        let started = try #require(f.system.started.first)
        #expect(started.resumeData == resumeData)
        #expect(started.ticket.isSameArtifact(as: ticket))
        #expect(abs((started.ticket.urlExpiresAt ?? .distantPast).timeIntervalSince(ticket.urlExpiresAt!)) < 0.01)
        #expect(try transfers.records().record("tiny") == nil) // the system owns it now
    }

    @Test("resume data whose signed URL has expired is not used (it would only fetch a 403): the transfer starts over with a fresh URL")
    func expiredResumeData() async throws {
        let (transfers, _) = try f.transfers()
        var ticket = try await f.ticket(transfers)
        ticket.urlExpiresAt = Date().addingTimeInterval(-1)
        transfers.failed(ticket: ticket, failure: .init(kind: .cancelled, cancelledReason: .userForceQuit, resumeData: Data([1]), error: .transport("x")))
        #expect(try await transfers.enqueue("tiny", session: nil, expecting: nil, tasks: []) == .started)
        #expect(f.system.started.first?.resumeData == nil)
        #expect(try transfers.records().record("tiny") == nil)
    }

    @Test("a cancellation without a system reason is this SDK's own and reports nothing; a failure with resume data keeps it")
    func cancellations() async throws {
        let (transfers, _) = try f.transfers()
        let ticket = try await f.ticket(transfers)
        transfers.failed(ticket: ticket, failure: .init(kind: .cancelled, cancelledReason: nil, resumeData: nil, error: .transport("x")))
        #expect(f.system.events.isEmpty)
        let lost = APIError.transport("the connection to cdn.example.test was lost")
        transfers.failed(ticket: ticket, failure: .init(kind: .other, cancelledReason: nil, resumeData: Data([9]), error: lost))
        #expect(f.system.events == [.failed(modelId: "tiny", error: lost)])
        #expect(try transfers.records().record("tiny")?.state == .resumable)
    }

    @Test("enqueue is idempotent: a live task of the same artifact is left alone, one of another artifact is cancelled")
    func enqueueIdempotent() async throws {
        let (transfers, _) = try f.transfers()
        let ticket = try await f.ticket(transfers)
        let same = BackgroundSessionLogic.TaskSnapshot(taskIdentifier: 7, ticket: ticket, state: .running, bytesReceived: 10, bytesExpected: nil, hasResponse: true)
        #expect(try await transfers.enqueue("tiny", session: nil, expecting: nil, tasks: [same]) == .alreadyRunning)
        #expect(f.system.started.isEmpty)
        var old = ticket
        old.sha256 = String(repeating: "0", count: 64)
        let other = BackgroundSessionLogic.TaskSnapshot(taskIdentifier: 8, ticket: old, state: .suspended, bytesReceived: 0, bytesExpected: nil, hasResponse: false)
        #expect(try await transfers.enqueue("tiny", session: nil, expecting: nil, tasks: [other]) == .started)
        #expect(f.system.cancelled == [[8]])
        #expect(f.system.started.count == 1)
    }

    // MARK: Point 2: extensions

    @Test("a session that cannot work (an extension without an App Group) refuses enqueue before any request, saying what to do")
    func extensionWithoutGroup() async throws {
        let problem = BackgroundSessionLogic.configurationProblem(identifier: "com.acme.app.widget.manashiki.background", isAppExtension: true, appGroup: nil)
        let (transfers, mock) = try f.transfers(problem: problem)
        await #expect(throws: BackgroundSessionError.self) { _ = try await transfers.enqueue("tiny", session: nil, expecting: nil, tasks: []) }
        #expect(mock.requests.isEmpty)
        #expect(problem?.errorDescription?.contains("appGroup:") == true)
    }

    @Test("the app and its extension keep their records apart in a shared store")
    func separateRecords() async throws {
        let (app, _) = try f.transfers(identifier: "com.acme.app.manashiki.background")
        let (widget, _) = try f.transfers(identifier: "com.acme.app.widget.manashiki.background")
        let ticket = try await f.ticket(app)
        app.failed(ticket: ticket, failure: .init(kind: .cancelled, cancelledReason: .userForceQuit, resumeData: Data([1]), error: .transport("x")))
        #expect(try app.records().record("tiny") != nil)
        #expect(try widget.records().record("tiny") == nil)
        #expect(try app.records().path != widget.records().path)
    }

    // MARK: Point 5: the system's completion handler, through the coordinator

    @Test("events delivered in the foreground do not release a later wake's handler before that wake's installs are done")
    func foregroundDeliveryThenWake() async throws {
        let (transfers, _) = try f.transfers()
        let ticket = try await f.ticket(transfers)
        // In the foreground: the session delivers earlier events; no handler is waiting.
        transfers.eventsDelivered()
        // An hour later the app is woken in the background for a finished download.
        f.system.advance(to: 3600)
        transfers.received(1)
        f.system.advance(to: 3603) // past any settle time: the old delivery must not count
        #expect(f.system.released.isEmpty)
        transfers.finished(location: try f.handOver(f.scripted.artifact), status: 200, finalURL: nil, ticket: ticket)
        transfers.eventsDelivered()
        f.system.advance(to: 3606)
        #expect(f.system.released.isEmpty) // the install has not run yet
        f.system.runWork()
        #expect(f.system.released == [1])
        guard case .installed? = f.system.events.last else { Issue.record("\(f.system.events)"); return }
    }

    @Test("a handler that arrives just after the session delivered (the relaunch race) is released once the installs are done and the session was quiet")
    func relaunchRace() async throws {
        let (transfers, _) = try f.transfers()
        let ticket = try await f.ticket(transfers)
        f.system.advance(to: 10)
        transfers.finished(location: try f.handOver(f.scripted.artifact), status: 200, finalURL: nil, ticket: ticket)
        transfers.eventsDelivered()
        f.system.advance(to: 10.5)
        transfers.received(1)
        f.system.runWork()
        #expect(f.system.released.isEmpty) // quiet for less than the settle time
        f.system.advance(to: 12.6)
        #expect(f.system.released == [1])
    }

    @Test("a requeue counts as the wake's work: the handler waits for the fresh task to be handed over")
    func requeueHoldsHandler() async throws {
        let (transfers, _) = try f.transfers()
        transfers.received(1)
        transfers.finished(location: try f.handOver(Data()), status: 403, finalURL: nil, ticket: try await f.ticket(transfers))
        transfers.eventsDelivered()
        try await waitUntil { f.system.released == [1] }
        #expect(f.system.started.count == 1)
    }
}

/// Waits for work on other tasks to reach a state; fails the test if it never does. Bounded by
/// 60 s of this loop's own polling (12,000 sleeps of 5 ms), not of the wall clock: on a loaded
/// 2-core machine the cooperative pool can be held for minutes by other suites, and then this
/// loop and the work it waits for are starved alike (a wall-clock bound failed with the work
/// about to run). A wall-clock bound of 10 minutes still ends a test whose work never comes.
func waitUntil(_ condition: @Sendable () -> Bool, sourceLocation: SourceLocation = #_sourceLocation) async throws {
    let wallEnd = Date().addingTimeInterval(600)
    for _ in 0..<12_000 where Date() < wallEnd {
        if condition() { return }
        try await Task.sleep(nanoseconds: 5_000_000)
    }
    if condition() { return }
    Issue.record("condition not reached within 60 s of polling", sourceLocation: sourceLocation)
}
