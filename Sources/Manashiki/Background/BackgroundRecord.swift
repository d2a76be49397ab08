import Foundation
import ManashikiCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// What a background session keeps about one model between launches, in
/// `<store>/.manashiki/background/<session>/<modelId>.json` (written with `DurableFile`):
///
/// * `resumable`: the system stopped the transfer (force-quit, a failure) and handed over resume
///   data; the next `enqueue` of the same artifact continues with `downloadTask(withResumeData:)`
///   while the signed URL it was made with is valid.
/// * `downloaded`: the system's file was moved into the partial folder as `partialName` during
///   `urlSession(_:downloadTask:didFinishDownloadingTo:)` and awaits verification and install
///   (`BackgroundInstall`); it is never under `<modelId>.bin` before it verifies.
///
/// One record per model and session: a newer one replaces the older. The app and each of its
/// extensions have their own session, so their own folder, even in a shared store.
///
/// ```json
/// {"formatVersion": 1, "state": "downloaded", "partialName": "m.0123456789abcdef.partial",
///  "ticket": {"modelId": "m", "sha256": "…", "size": 1048576, "retries": 0}, "savedAt": 7.5e8}
/// ```
struct BackgroundRecord: Sendable, Equatable, Codable {
    /// The format this SDK reads and writes; a record of another version is left alone.
    static let currentFormatVersion = 1

    /// What the record holds.
    enum State: String, Sendable, Codable {
        case resumable, downloaded
    }

    var formatVersion = Self.currentFormatVersion
    var state: State
    var ticket: BackgroundDownloadTicket
    /// The system's opaque resume data (`resumable`).
    var resumeData: Data?
    /// The file in the partial folder awaiting verification (`downloaded`).
    var partialName: String?
    var savedAt: Date

    static func resumable(_ ticket: BackgroundDownloadTicket, resumeData: Data, now: Date = Date()) -> Self {
        BackgroundRecord(state: .resumable, ticket: ticket, resumeData: resumeData, partialName: nil, savedAt: now)
    }

    static func downloaded(_ ticket: BackgroundDownloadTicket, partialName: String, now: Date = Date()) -> Self {
        BackgroundRecord(state: .downloaded, ticket: ticket, resumeData: nil, partialName: partialName, savedAt: now)
    }

    /// Why a record's bytes cannot be used.
    enum Rejection: Error, Equatable {
        /// Not JSON, or fields missing or wrong.
        case unreadable
        /// Another format version (a newer SDK's).
        case otherFormat(Int)
    }

    /// Decodes a record, reading the format version before anything else.
    static func decode(_ data: Data) -> Result<Self, Rejection> {
        // The strict reader: duplicate keys and documents beyond `JSONLimits` are unreadable.
        guard case .object(let members)? = try? JSONValue.parse(data), case .int(let version)? = members["formatVersion"] else {
            return .failure(.unreadable)
        }
        guard version == currentFormatVersion else { return .failure(.otherFormat(version)) }
        guard let record = try? StrictJSONDecoder().decode(Self.self, from: data), ModelID.isValid(record.ticket.modelId),
              Hex.isSHA256(record.ticket.sha256),
              (record.state == .resumable) == (record.resumeData != nil),
              (record.state == .downloaded) == (record.partialName.map { isPartial($0, of: record.ticket.modelId) } ?? false) else {
            return .failure(.unreadable)
        }
        return .success(record)
    }

    /// Whether `name` is a partial file's name of `modelId`, in the partial folder itself.
    private static func isPartial(_ name: String, of modelId: String) -> Bool {
        !name.contains("/") && StoreLayout.modelId(ofPartial: name) == modelId
    }

    func encoded() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (try? encoder.encode(self)) ?? Data()
    }
}

/// The records of one background session in one store (`BackgroundRecord`).
final class BackgroundRecords: @unchecked Sendable {
    /// The store the records describe.
    let store: StorageDirectory
    /// `<store>/.manashiki/background/<session>`.
    var path: String { folder.path }
    private let folder: DirectoryHandle

    /// The most bytes of a record read (one is a few hundred bytes, resume data a few KiB).
    static let maxBytes = 4 << 20

    /// Opens (creating) the folder of `sessionIdentifier`'s records in `store`.
    init(store: StorageDirectory, sessionIdentifier: String) throws {
        self.store = store
        folder = try store.metadata.directory(StoreLayout.backgroundFolderName, creating: true)
            .directory(Self.folderName(for: sessionIdentifier), creating: true)
    }

    /// The folder of a session: its identifier when that is a plain name (a bundle identifier
    /// is), else `session-<first 16 hex of its SHA-256>`.
    static func folderName(for identifier: String) -> String {
        let plain = identifier.utf8.allSatisfy { c in
            (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x2D || c == 0x2E || c == 0x5F
        }
        if plain, !identifier.isEmpty, !identifier.hasPrefix("."), identifier.utf8.count <= 200 { return identifier }
        return "session-" + SHA256Hasher.hash(Data(identifier.utf8)).hex.prefix(16)
    }

    private static func fileName(_ modelId: String) -> String { modelId + ".json" }

    /// The usable record of `modelId`, if any.
    func record(_ modelId: String) -> BackgroundRecord? {
        guard let data = try? folder.read(Self.fileName(modelId), limit: Self.maxBytes),
              case .success(let record) = BackgroundRecord.decode(data), record.ticket.modelId == modelId else { return nil }
        return record
    }

    /// Every usable record, by model id. Unreadable ones (a crash cannot leave one: they are
    /// written durably; a damaged disk can) are removed; other format versions are left.
    func all() -> [BackgroundRecord] {
        let names = folder.names()
        var found: [BackgroundRecord] = []
        for name in names.sorted() where name.hasSuffix(".json") && !DurableFile.isTemporary(name) {
            let data: Data
            do {
                guard let read = try folder.read(name, limit: Self.maxBytes) else { continue }
                data = read
            } catch {
                folder.remove(name) // too large, a FIFO, a symbolic link: not a record this SDK wrote
                continue
            }
            switch BackgroundRecord.decode(data) {
            case .success(let record) where Self.fileName(record.ticket.modelId) == name: found.append(record)
            case .failure(.otherFormat): continue
            default: folder.remove(name)
            }
        }
        return found
    }

    /// Writes (replacing) the record of its model.
    func write(_ record: BackgroundRecord) throws {
        try folder.replace(Self.fileName(record.ticket.modelId), with: record.encoded())
    }

    /// Removes the record of `modelId` (best effort).
    func remove(_ modelId: String) {
        folder.remove(Self.fileName(modelId))
    }

    /// Removes the record of `modelId` and what it holds: a file awaiting verification.
    func discard(_ modelId: String) {
        if let name = record(modelId)?.partialName { store.removePartial(name) }
        remove(modelId)
    }
}
