import Foundation
import Manashiki

/// Passes a response on, except a 401 (stopped and thrown as `Challenged`, so it can be
/// answered and the request sent again) and a 403 (thrown as `OCIError.denied`).
final class ChallengeGate: HTTPBodyConsumer, @unchecked Sendable {
    struct Challenged: Error { var head: HTTPResponseHead }
    private let consumer: any HTTPBodyConsumer
    private let auth: OCIAuthenticator

    init(_ consumer: any HTTPBodyConsumer, auth: OCIAuthenticator) {
        self.consumer = consumer
        self.auth = auth
    }

    func receive(head: HTTPResponseHead) async throws {
        if head.status == 401 { throw Challenged(head: head) }
        if head.status == 403 { throw OCIError.denied(registry: auth.registryName, repository: auth.reference.repository, detail: "") }
        try await consumer.receive(head: head)
    }

    func receive(chunk: Data) async throws { try await consumer.receive(chunk: chunk) }
}
