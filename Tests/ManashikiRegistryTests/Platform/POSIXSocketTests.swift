import Foundation
import Testing
@testable import ManashikiRegistry
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@Suite("POSIX sockets")
struct POSIXSocketTests {
    @Test("connect reaches a listener on 127.0.0.1, bytes go through, and localPort names each end's port")
    func connectToListener() throws {
        let listener = try POSIXSocket.listen(host: "127.0.0.1", port: 0)
        defer { close(listener.fd) }
        #expect(POSIXSocket.localPort(listener.fd) == listener.port)
        let client = try POSIXSocket.connect(port: listener.port, receiveBuffer: 64 << 10)
        defer { close(client) }
        let accepted = try #require(POSIXSocket.accept(listener.fd))
        defer { close(accepted.fd) }
        #expect(accepted.loopback)
        #expect(POSIXSocket.localPort(client) != listener.port)
        try Array("ping".utf8).withUnsafeBytes { try POSIXSocket.sendAll(client, $0) }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16)
        while received.count < 4 {
            let n = try buffer.withUnsafeMutableBytes { try POSIXSocket.receive(accepted.fd, into: $0) }
            guard n > 0 else { break }
            received += buffer[0..<n]
        }
        #expect(received == Array("ping".utf8))
    }

    @Test("connect to a host that is not an IPv4 address throws before any socket is made")
    func connectToInvalidHost() {
        #expect(throws: SocketError.self) { try POSIXSocket.connect(host: "not-an-address", port: 80) }
    }
}
