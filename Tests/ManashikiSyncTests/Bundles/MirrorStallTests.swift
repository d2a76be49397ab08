import Foundation
import Manashiki
import ManashikiRegistry
import Testing
@testable import ManashikiSync
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A mirror that accepts the connection and then says nothing: the transfer fails over to the
/// registry after the mirror idle timeout, instead of hanging the run.
@Suite("Mirror that stalls")
struct MirrorStallTests {
    /// A loopback socket that listens (the kernel completes connections) but never answers.
    final class SilentListener {
        let fd: Int32
        let port: Int
        init() throws {
            let fd = socket(AF_INET, POSIXSocket.streamType, 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let ok = withUnsafeMutablePointer(to: &address) { p in
                p.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && listen(fd, 16) == 0 && getsockname(fd, $0, &length) == 0 }
            }
            guard ok else { close(fd); throw NSError(domain: "SilentListener", code: Int(errno)) }
            self.fd = fd
            port = Int(UInt16(bigEndian: address.sin_port))
        }
        deinit { close(fd) }
    }

    @Test("a silent mirror is abandoned after the mirror idle timeout and the model comes from the registry")
    func stallFallsThrough() async throws {
        let key = "mk_pub_acme_AbCdEfGhIjKlMnOpQrSt01"
        var catalog = RegistryCatalog()
        catalog.keys = [RegistryKey(secret: key, organization: "acme")]
        catalog.add(model: RegistryModel(modelId: "tiny", version: "1.0.0", artifact: .generated(size: 20_000, seed: 5), platforms: ["linux"]))
        let registry = try DevelopmentRegistry.start(catalog: catalog)
        defer { registry.stop() }
        let silent = try SilentListener()
        let store = TestStore()
        var manifest = Manifest(registry: RegistrySettings(baseURL: registry.apiBaseURL), store: StoreSettings(directory: store.url.path),
                                policies: SyncPolicies(checkCompatibility: false), models: [ModelSpec(id: "tiny")])
        manifest.sources = [ArtifactSource(.mirror(URL(string: "http://127.0.0.1:\(silent.port)/bundle")!))]
        var options = Fixture.options()
        options.mirrorIdleTimeout = 1

        let report = try await Reconciler(manifest: manifest, apiKey: key, options: options).run()
        #expect(report.outcome == .changed, "\(report.summary)")
        #expect(report["tiny"]?.source == "registry")
        #expect(report.bytesBySource == ["registry": 20_000])
        #expect(try Data(contentsOf: store.file("tiny")) == registry.artifactBytes(modelId: "tiny"))
    }
}
