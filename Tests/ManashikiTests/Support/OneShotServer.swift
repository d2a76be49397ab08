import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A loopback server that answers each connection with exact bytes, for wire cases the
/// development registry does not produce (interim 1xx heads, for example).
final class OneShotServer: @unchecked Sendable {
    let port: UInt16
    private let listener: Int32

    init(answer: Data) throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var one: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        addr.sin_port = 0
        let bound = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        guard bound == 0, listen(listener, 8) == 0 else { throw POSIXError(.EADDRINUSE) }
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &len) } }
        port = UInt16(bigEndian: addr.sin_port)
        self.listener = listener
        let fd = listener
        Thread {
            while true {
                let client = accept(fd, nil, nil)
                if client < 0 { return }
                var buffer = [UInt8](repeating: 0, count: 65536)
                var request = [UInt8]()
                while !request.suffix(4).elementsEqual([13, 10, 13, 10]) {
                    let n = read(client, &buffer, buffer.count)
                    if n <= 0 { break }
                    request += buffer[0..<n]
                }
                answer.withUnsafeBytes { _ = send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                shutdown(client, Int32(SHUT_RDWR))
                close(client)
            }
        }.start()
    }

    var url: URL { URL(string: "http://127.0.0.1:\(port)/blob")! }

    deinit {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }
}
