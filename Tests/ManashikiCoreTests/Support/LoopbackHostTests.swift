import Testing
@testable import ManashikiCore

@Suite("LoopbackHost")
struct LoopbackHostTests {
    @Test("this machine, in every spelling a URL or a bind address uses", arguments: [
        "localhost", "LOCALHOST", "LocalHost", "localhost.", "127.0.0.1", "127.1.2.3", "127.255.255.255", "::1", "[::1]",
        "0:0:0:0:0:0:0:1",
    ])
    func loopback(host: String) {
        #expect(LoopbackHost.matches(host))
    }

    @Test("other machines, however much they look like this one", arguments: [
        "127.example.com", "127.0.0.1.example.com", "localhost.example.com", "mylocalhost", "128.0.0.1", "127.0.0.256",
        "127.0.0", "127..0.1", "::2", "", "example.com", "10.0.0.1",
    ])
    func remote(host: String) {
        #expect(!LoopbackHost.matches(host))
    }

    @Test("the name localhost, apart from the addresses")
    func localhostName() {
        #expect(LoopbackHost.isLocalhostName("Localhost"))
        #expect(!LoopbackHost.isLocalhostName("127.0.0.1"))
    }
}
