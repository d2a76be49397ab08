import Foundation
import ManashikiRegistry
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Ports on 127.0.0.1 for servers a test or the benchmark starts: the package's one way to
/// find a free port and to ask whether something accepts on one. A free port comes from the
/// kernel (bound to port 0, as the development registry and `ScriptedOrigin` bind theirs);
/// none is ever picked by hand.
///
/// A port found free can be taken by another server before the child process that was given
/// it binds it, so a child started on one must be checked to be the one listening there
/// (`NginxServer` waits for nginx's pid file; `LoopbackDaemon` for its child to keep running).
package enum LoopbackPort {
    /// A port nothing listens on right now (bound to 0, read back, closed).
    /// - Throws: the socket call's error when none could be bound.
    package static func free() throws -> Int {
        let socket = try POSIXSocket.listen(host: "127.0.0.1", port: 0)
        close(socket.fd)
        return Int(socket.port)
    }

    /// Whether something accepts connections on 127.0.0.1:`port`.
    ///
    /// A connect to a port nobody listens on can still succeed when the kernel picks that very
    /// port as the source port (TCP simultaneous open, a "self-connect": the socket is
    /// connected to itself). That says nothing about a server, so it is tried again.
    package static func accepts(_ port: Int, attempts: Int = 5) -> Bool {
        for _ in 0..<attempts {
            guard let localPort = localPortOfConnection(to: port) else { return false }
            if localPort != port { return true }
        }
        return true
    }

    /// Connects to 127.0.0.1:`port` and closes again; the connection's local port, or nil
    /// when the connect failed (refused: nothing listens).
    private static func localPortOfConnection(to port: Int) -> Int? {
        let fd = socket(AF_INET, POSIXSocket.streamType, 0)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        let connected = withUnsafePointer(to: &address) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
        guard connected else { return nil }
        var local = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return Int(UInt16(bigEndian: local.sin_port))
    }
}
