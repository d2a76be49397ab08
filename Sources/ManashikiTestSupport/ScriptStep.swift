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
}
