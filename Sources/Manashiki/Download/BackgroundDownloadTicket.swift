import Foundation
import ManashikiCore

/// What the SDK needs to verify a model file that the system downloaded for the app (a
/// background `URLSession`, Background Assets): which model, and the digest and size the
/// registry promised. It travels with the system's task (`taskDescription`, as JSON), so it
/// survives the app's suspension, termination and relaunch.
///
/// ```swift
/// let (request, ticket) = try await client.backgroundDownloadRequest("whisper-medical-ja-fp16")
/// // … the system downloads `request`; later, in urlSession(_:downloadTask:didFinishDownloadingTo:):
/// let model = try client.installDownloadedFile(at: location, status: 200, for: ticket)
/// ```
public struct BackgroundDownloadTicket: Sendable, Hashable, Codable {
    /// The model the file is.
    public var modelId: String
    /// The registry's SHA-256 (64 lowercase hex). Required: a file fetched by the system is
    /// never installed unverified.
    public var sha256: String
    /// The registry's size in bytes, if it gave one.
    public var size: Int64?
    /// The catalog version, if known.
    public var version: String?

    /// Creates a ticket.
    public init(modelId: String, sha256: String, size: Int64?, version: String?) {
        self.modelId = modelId
        self.sha256 = sha256
        self.size = size
        self.version = version
    }

    /// The ticket as the text stored in a task's `taskDescription`.
    public var taskDescription: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: (try? encoder.encode(self)) ?? Data(), as: UTF8.self)
    }

    /// The ticket stored in a task's `taskDescription`, or nil when it holds none (a task this
    /// SDK did not create).
    public init?(taskDescription: String?) {
        guard let text = taskDescription, let ticket = try? JSONDecoder().decode(Self.self, from: Data(text.utf8)),
              ModelID.isValid(ticket.modelId), Hex.isSHA256(ticket.sha256) else { return nil }
        self = ticket
    }
}
