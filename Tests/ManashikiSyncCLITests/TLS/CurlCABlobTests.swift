#if os(Linux)
import Foundation
import Testing
@testable import Manashiki

/// The CA bundle reaches libcurl as PEM text (CURLOPT_CAINFO_BLOB, bundle + system CA file), so
/// it adds to the system's trust on every distribution, not only where a CA directory exists.
@Suite("CurlTransport: an explicit CA bundle goes to libcurl as PEM text (real TLS)")
struct CurlCABlobTests {
    @Test("the PEM text alone verifies the server: the CA file named beside it does not exist", .requires(.nginx, .openssl))
    func blobIsUsed() async throws {
        let setup = try await PrivateCATests.Setup()
        let url = try #require(URL(string: "\(setup.nginx.baseURL)/api/models"))
        let pem = try Data(contentsOf: setup.ca.certificate)
        let request = HTTPRequest(url: url, headers: ["X-API-Key": Fixture.key])
        let transfer = CurlTransfer(request: request, maxQueuedBytes: 1 << 20, connectTimeout: 10,
                                    caLocations: CALocations(file: "/nonexistent/manashiki-ca.pem", pem: pem))
        let consumer = BufferingConsumer(limit: 1 << 20)
        transfer.start()
        var failure: (any Error)?
        do { try await transfer.deliver(to: consumer) } catch { failure = error }
        await setup.stop()
        #expect(failure == nil, "\(String(describing: failure))")
        #expect(try consumer.response().status == 200)
    }
}
#endif
