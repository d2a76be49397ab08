import Foundation

/// What a `ScriptedOrigin` does on a connection, step by step; the connection is closed after
/// the last step.
package enum ScriptStep: Sendable {
    /// Sends these exact bytes.
    case send(Data)
    /// Waits (bounded by the origin's stop).
    case pause(milliseconds: Int)
    /// Sends `chunk` over and over until the peer hangs up or `limit` bytes went out.
    case endless(chunk: Data, limit: Int)
    /// Sends nothing more until the peer hangs up (or `seconds` pass).
    case silence(seconds: Int)
    /// Sends `chunk`, waits `intervalMilliseconds`, and again, until `limit` bytes went out or
    /// the peer hangs up: a server that drips a body (2 bytes a second, for ever).
    case drip(chunk: Data, intervalMilliseconds: Int, limit: Int)
}
