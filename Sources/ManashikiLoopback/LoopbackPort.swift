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
/// the one exception is `freePairBelowEphemeralRange()`, for a child told two fixed ports.
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

    /// A port N such that N and N+1 are both free, below the kernel's (default) ephemeral range,
    /// for a child that must be given fixed ports and binds N+1 too (`manashiki-registry serve
    /// --port N`, the quick start). A port from `free()` lies in the ephemeral range, where
    /// another server bound to port 0 or any outgoing connection's source port can take N or
    /// N+1 before the child binds them (the quick start's port clash under load); below the
    /// range only a server given that port by hand can.
    /// - Throws: `NoFreePortPair` when no such pair was found in 200 tries.
    package static func freePairBelowEphemeralRange() throws -> Int {
        let first = ephemeralRangeStart
        let lowest = 10_000
        for _ in 0..<200 {
            let port = Int.random(in: lowest...(first - 2))
            guard let a = try? POSIXSocket.listen(host: "127.0.0.1", port: UInt16(port)) else { continue }
            defer { close(a.fd) }
            guard let b = try? POSIXSocket.listen(host: "127.0.0.1", port: UInt16(port + 1)) else { continue }
            close(b.fd)
            return port
        }
        throw NoFreePortPair(below: first)
    }

    /// No two adjacent free ports were found below the ephemeral range.
    package struct NoFreePortPair: Error, CustomStringConvertible {
        /// The first port of the ephemeral range.
        package let below: Int
        package var description: String { "no two adjacent free ports on 127.0.0.1 below \(below) in 200 tries" }
    }

    /// The first port of the kernels' default ephemeral ranges: Linux's
    /// (`net.ipv4.ip_local_port_range`, 32768–60999) starts lowest; Apple platforms' at 49152.
    static let ephemeralRangeStart = 32_768

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
