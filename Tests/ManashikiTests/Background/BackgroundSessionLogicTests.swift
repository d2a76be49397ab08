import Foundation
import Testing
@testable import Manashiki
import ManashikiTestSupport

/// The decisions of `BackgroundModelDownloads` (Apple's background URLSession), which Linux
/// cannot run, as pure functions: identifiers and App Groups, trust, what a finished task
/// becomes, what a failure becomes, what an enqueue does and what `status()` says.
@Suite("Background sessions: the decisions")
struct BackgroundSessionLogicTests {
    static let sha = String(repeating: "ab", count: 32)
    static func ticket(_ id: String = "m", sha: String = sha, size: Int64? = 100, retries: Int = 0, expires: Date? = nil) -> BackgroundDownloadTicket {
        BackgroundDownloadTicket(modelId: id, sha256: sha, size: size, version: "1", urlExpiresAt: expires, retries: retries)
    }

    // MARK: Point 2: identifiers and App Groups

    @Test("the default identifier is derived from the bundle identifier, so an app and its extension differ; none falls back to one constant")
    func identifiers() {
        let app = BackgroundSessionLogic.defaultIdentifier(bundleIdentifier: "com.acme.models")
        let widget = BackgroundSessionLogic.defaultIdentifier(bundleIdentifier: "com.acme.models.widget")
        #expect(app == "com.acme.models.manashiki.background")
        #expect(widget == "com.acme.models.widget.manashiki.background")
        #expect(BackgroundSessionLogic.defaultIdentifier(bundleIdentifier: nil) == "com.manashiki.models.background")
        #expect(BackgroundSessionLogic.defaultIdentifier(bundleIdentifier: "") == "com.manashiki.models.background")
    }

    @Test("an app extension is told apart by its bundle's .appex extension")
    func extensionBundle() {
        #expect(BackgroundSessionLogic.isAppExtension(bundleURL: URL(fileURLWithPath: "/private/var/containers/Bundle/Application/X/Models.app/PlugIns/Widget.appex")))
        #expect(!BackgroundSessionLogic.isAppExtension(bundleURL: URL(fileURLWithPath: "/Applications/Models.app")))
    }

    @Test("a session in an extension needs an App Group; an app does not; an empty group is refused", arguments: [
        (true, nil as String?, BackgroundSessionError.Problem?.some(.extensionWithoutAppGroup)),
        (true, "group.com.acme.models", nil),
        (false, nil, nil),
        (false, " ", .some(.emptyAppGroup)),
    ])
    func appGroups(isExtension: Bool, group: String?, expected: BackgroundSessionError.Problem?) {
        let problem = BackgroundSessionLogic.configurationProblem(identifier: "id", isAppExtension: isExtension, appGroup: group)
        #expect(problem?.problem == expected)
        if let problem { #expect(problem.errorDescription?.contains("App Group") == true) }
    }

    @Test("an invalidated session says what to do for the two background-session error codes")
    func invalidations() {
        #expect(BackgroundSessionLogic.invalidation(code: -995, description: "x", identifier: "id").problem == .extensionWithoutAppGroup)
        let inUse = BackgroundSessionLogic.invalidation(code: -996, description: "x", identifier: "id")
        #expect(inUse.problem == .inUseByAnotherProcess)
        #expect(inUse.errorDescription?.contains("its own") == true)
        #expect(BackgroundSessionLogic.invalidation(code: -1009, description: "offline", identifier: "id").problem == .invalidated("offline"))
        #expect(BackgroundSessionLogic.invalidation(code: nil, description: "invalidated", identifier: "id").problem == .invalidated("invalidated"))
    }

    @Test("a session's records folder is its identifier when that is a plain name, else a digest of it")
    func folderNames() {
        #expect(BackgroundRecords.folderName(for: "com.acme.models.manashiki.background") == "com.acme.models.manashiki.background")
        for odd in ["../x", "a/b", ".hidden", "", String(repeating: "x", count: 300)] {
            let name = BackgroundRecords.folderName(for: odd)
            #expect(name.hasPrefix("session-") && !name.contains("/"), "\(odd)")
        }
        #expect(BackgroundRecords.folderName(for: "a/b") != BackgroundRecords.folderName(for: "a/c"))
    }

    // MARK: Point 1: the foreground's trust

    @Test("the background session answers server-trust challenges with the foreground transport's CAs, or the ones given")
    func trust() throws {
        let dir = ScratchDirectory()
        let pem = dir.file("corp-ca.pem")
        try Data("-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIU\n-----END CERTIFICATE-----\n".utf8).write(to: pem)
        let corporate = try TLSTrust(caBundle: pem)
        #expect(!corporate.certificates.isEmpty)
        for transport in [DefaultTransport(trust: corporate) as any HTTPTransport, URLSessionTransport(trust: corporate)] {
            let client = try ManashikiClient(apiKey: TestKeys.publishable, transport: transport, storageDirectory: dir.url)
            #expect(BackgroundSessionLogic.trust(of: client.transport) == corporate)
            #expect(BackgroundSessionLogic.serverTrust(of: client, override: nil).certificates == corporate.certificates)
            #expect(BackgroundSessionLogic.serverTrust(of: client, override: .system).certificates.isEmpty)
        }
        let mock = try ManashikiClient(apiKey: TestKeys.publishable, transport: MockTransport { _ in .json(200, "{}") })
        #expect(BackgroundSessionLogic.trust(of: mock.transport) == .system)
    }

    // MARK: Points 4 and the redirect policy: a finished task

    @Test("what a finished task's status makes of its file", arguments: [
        (200, 0, BackgroundSessionLogic.Finish.adopt),
        (403, 0, .requeue(.urlExpired(status: 403))),
        (410, 2, .requeue(.urlExpired(status: 410))),
        (429, 0, .requeue(.storageUnavailable(status: 429))),
        (503, 1, .requeue(.storageUnavailable(status: 503))),
    ])
    func finishTable(status: Int, retries: Int, expected: BackgroundSessionLogic.Finish) {
        #expect(BackgroundSessionLogic.finish(status: status, finalURL: nil, ticket: Self.ticket(retries: retries), maxRetries: 3) == expected)
    }

    @Test("a spent retry budget, a 404, a 206 or no status fails with the status", arguments: [(403, 3), (503, 3), (404, 0), (206, 0), (nil, 0)] as [(Int?, Int)])
    func finishFails(status: Int?, retries: Int) {
        let decision = BackgroundSessionLogic.finish(status: status, finalURL: nil, ticket: Self.ticket(retries: retries), maxRetries: 3)
        guard case .fail(let error) = decision else { Issue.record("\(decision)"); return }
        #expect(error.httpStatus == (status ?? 0) || status == nil)
    }

    @Test("a file that a redirect fetched from a URL the policy refuses is not installed, although its status is 200", arguments: [
        "http://cdn.example.test/tiny.bin?sig=abc", "ftp://cdn.example.test/tiny.bin", "https://user:secret@cdn.example.test/tiny.bin",
    ])
    func refusedRedirect(url: String) {
        let decision = BackgroundSessionLogic.finish(status: 200, finalURL: URL(string: url), ticket: Self.ticket(), maxRetries: 3)
        guard case .fail(.refusedURL(let message)) = decision else { Issue.record("\(url): \(decision)"); return }
        #expect(message.contains("redirected the background download of m"))
        #expect(!message.contains("secret") && !message.contains("sig=abc"))
    }

    @Test("the signed https URL, a loopback http one, or none at all is accepted")
    func allowedFinalURL() {
        for url in ["https://cdn.example.test/tiny.bin?sig=abc", "http://127.0.0.1:8080/tiny.bin", nil] {
            #expect(BackgroundSessionLogic.finish(status: 200, finalURL: url.flatMap(URL.init(string:)), ticket: Self.ticket(), maxRetries: 3) == .adopt)
        }
    }

    @Test("a requeue after an expired URL starts at once; after a busy host, 30 s doubled per retry, at most 15 min")
    func backoff() {
        let now = Date(timeIntervalSinceReferenceDate: 0)
        #expect(BackgroundSessionLogic.notBefore(.urlExpired(status: 403), retries: 2, now: now) == nil)
        #expect(BackgroundSessionLogic.notBefore(.storageUnavailable(status: 503), retries: 0, now: now) == now.addingTimeInterval(30))
        #expect(BackgroundSessionLogic.notBefore(.storageUnavailable(status: 503), retries: 2, now: now) == now.addingTimeInterval(120))
        #expect(BackgroundSessionLogic.notBefore(.storageUnavailable(status: 503), retries: 9, now: now) == now.addingTimeInterval(900))
    }

    // MARK: Point 3: failures

    @Test("a system cancellation is an interruption that keeps its resume data, never 'the request was cancelled'", arguments: [
        BackgroundInterruption.userForceQuit, .backgroundUpdatesDisabled, .insufficientSystemResources, .other,
    ])
    func interruptions(reason: BackgroundInterruption) {
        let data = Data([1, 2, 3])
        let failure = BackgroundSessionLogic.TaskFailure(kind: .cancelled, cancelledReason: reason, resumeData: data, error: .transport("the request to h was cancelled"))
        #expect(BackgroundSessionLogic.classify(failure, modelId: "m", deadline: 60) == .interrupted(reason, resumeData: data))
    }

    @Test("a cancellation without a system reason is the SDK's own; other failures are failures with their resume data")
    func otherFailures() {
        let cancelled = BackgroundSessionLogic.TaskFailure(kind: .cancelled, cancelledReason: nil, resumeData: nil, error: .transport("x"))
        #expect(BackgroundSessionLogic.classify(cancelled, modelId: "m", deadline: 60) == .ignored)
        let offline = APIError.transport("this device is offline")
        let failed = BackgroundSessionLogic.TaskFailure(kind: .other, cancelledReason: nil, resumeData: Data([4]), error: offline)
        #expect(BackgroundSessionLogic.classify(failed, modelId: "m", deadline: 60) == .failed(offline, resumeData: Data([4])))
    }

    @Test("a resource timeout is the deadline having passed, worded with it", arguments: [(7 * 86_400.0, "7 days"), (7200, "2 h"), (90, "90 s")])
    func deadline(seconds: Double, text: String) {
        let failure = BackgroundSessionLogic.TaskFailure(kind: .timedOut, cancelledReason: nil, resumeData: nil, error: .transport("timed out"))
        guard case .failed(.transport(let message), nil) = BackgroundSessionLogic.classify(failure, modelId: "m", deadline: seconds) else {
            Issue.record("not a transport failure"); return
        }
        #expect(message.contains("within the \(text) allowed"))
    }

    // MARK: Enqueue

    static func task(_ id: Int, _ ticket: BackgroundDownloadTicket?, _ state: BackgroundSessionLogic.TaskSnapshot.State = .running) -> BackgroundSessionLogic.TaskSnapshot {
        .init(taskIdentifier: id, ticket: ticket, state: state, bytesReceived: 0, bytesExpected: nil, hasResponse: false)
    }

    @Test("enqueue plans: already running, install pending, resume while the URL is valid, start over otherwise")
    func enqueuePlans() {
        let now = Date()
        let t = Self.ticket()
        let other = Self.ticket(sha: String(repeating: "cd", count: 32))
        #expect(BackgroundSessionLogic.enqueuePlan(t, record: nil, tasks: [Self.task(1, t)], now: now) == .alreadyRunning)
        #expect(BackgroundSessionLogic.enqueuePlan(t, record: nil, tasks: [Self.task(1, t, .completed), Self.task(2, nil)], now: now) == .start(resumeData: nil, cancelling: []))
        #expect(BackgroundSessionLogic.enqueuePlan(t, record: nil, tasks: [Self.task(3, other, .suspended), Self.task(4, Self.ticket("n"))], now: now) == .start(resumeData: nil, cancelling: [3]))
        #expect(BackgroundSessionLogic.enqueuePlan(t, record: .downloaded(t, partialName: "m.0123456789abcdef.partial"), tasks: [], now: now) == .installPending)
        let valid = Self.ticket(expires: now.addingTimeInterval(60)), expired = Self.ticket(expires: now.addingTimeInterval(-60))
        #expect(BackgroundSessionLogic.enqueuePlan(t, record: .resumable(valid, resumeData: Data([1])), tasks: [], now: now) == .start(resumeData: Data([1]), cancelling: []))
        #expect(BackgroundSessionLogic.enqueuePlan(t, record: .resumable(Self.ticket(), resumeData: Data([1])), tasks: [], now: now) == .start(resumeData: Data([1]), cancelling: []))
        #expect(BackgroundSessionLogic.enqueuePlan(t, record: .resumable(expired, resumeData: Data([1])), tasks: [], now: now) == .start(resumeData: nil, cancelling: []))
        #expect(BackgroundSessionLogic.enqueuePlan(t, record: .resumable(other, resumeData: Data([1])), tasks: [], now: now) == .start(resumeData: nil, cancelling: []))
    }

    // MARK: Point 7: what a waiting transfer looks like

    @Test("status: a live task with no response and no byte waits (a background session never says so); records show pending installs and resume data")
    func statuses() {
        let a = Self.ticket("a"), b = Self.ticket("b"), c = Self.ticket("c"), d = Self.ticket("d"), e = Self.ticket("e")
        var transferring = Self.task(2, b)
        transferring.bytesReceived = 40
        transferring.hasResponse = true
        let list = BackgroundSessionLogic.statuses(tasks: [Self.task(1, a), transferring, Self.task(3, c, .suspended), Self.task(9, e, .completed)],
                                                   records: [.downloaded(d, partialName: "d.0123456789abcdef.partial"), .resumable(e, resumeData: Data([1]))])
        #expect(list.map(\.modelId) == ["a", "b", "c", "d", "e"])
        #expect(list.map(\.state) == [.waiting, .transferring, .suspended, .awaitingInstall, .resumable])
        #expect(list[1].bytesReceived == 40 && list[1].totalBytes == 100)
    }

    // MARK: The ticket and the record on disk

    @Test("a ticket written by an older SDK (no expiry, no retries) still decodes; one with negative retries does not")
    func ticketCompatibility() {
        let old = #"{"modelId":"m","sha256":"\#(Self.sha)","size":5,"version":"1"}"#
        #expect(BackgroundDownloadTicket(taskDescription: old) == BackgroundDownloadTicket(modelId: "m", sha256: Self.sha, size: 5, version: "1"))
        #expect(BackgroundDownloadTicket(taskDescription: #"{"modelId":"m","sha256":"\#(Self.sha)","retries":-1}"#) == nil)
        let t = Self.ticket(retries: 2)
        #expect(BackgroundDownloadTicket(taskDescription: t.taskDescription) == t)
    }

    @Test("records: format version first (another version is refused), state and payload must agree")
    func recordFormat() throws {
        let record = BackgroundRecord.resumable(Self.ticket(), resumeData: Data([7]))
        #expect(try BackgroundRecord.decode(record.encoded()).get() == record)
        var newer = record
        newer.formatVersion = 2
        #expect(BackgroundRecord.decode(newer.encoded()) == .failure(.otherFormat(2)))
        var broken = record
        broken.resumeData = nil
        #expect(BackgroundRecord.decode(broken.encoded()) == .failure(.unreadable))
        #expect(BackgroundRecord.decode(Data("{".utf8)) == .failure(.unreadable))
        var escaping = BackgroundRecord.downloaded(Self.ticket(), partialName: "../../m.bin")
        #expect(BackgroundRecord.decode(escaping.encoded()) == .failure(.unreadable))
        escaping.partialName = "../m.0123456789abcdef.partial"
        #expect(BackgroundRecord.decode(escaping.encoded()) == .failure(.unreadable))
        escaping.partialName = "other.0123456789abcdef.partial"
        #expect(BackgroundRecord.decode(escaping.encoded()) == .failure(.unreadable))
        escaping.partialName = "m.0123456789abcdef.partial"
        #expect(BackgroundRecord.decode(escaping.encoded()) == .success(escaping))
    }
}
