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
        guard let fd = try? POSIXSocket.connect(port: UInt16(port)) else { return nil }
        defer { close(fd) }
        return Int(POSIXSocket.localPort(fd))
    }
}
