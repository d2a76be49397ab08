#if os(Linux) || os(macOS) // child processes (ManashikiProcess) exist on Linux and macOS only
import Foundation
import ManashikiTestSupport
import Manashiki

/// What a `curl` run produced.
struct CurlResult {
    /// curl's exit status (0 success, 18 partial file, 28 timeout, 52 empty reply, 56 recv failure…).
    let exitCode: Int32
    /// The last response's status (0 if none).
    let status: Int
    /// The last response's header lines.
    let headers: [(name: String, value: String)]
    /// The body bytes written.
    let body: Data

    func header(_ name: String) -> String? {
        headers.last { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }
}

/// Runs `curl` as a process (bounded by --max-time). Tests using it require `.curl`.
enum Curl {
    static func run(_ arguments: [String], maxTime: Int = 20) throws -> CurlResult {
        let dir = ScratchDirectory("curl")
        let bodyFile = dir.file("body"), headerFile = dir.file("headers")
        let result = RunningChild.run(try Peer.curl.require(),
                                      ["-s", "--max-time", String(maxTime), "-o", bodyFile.path, "-D", headerFile.path,
                                       "-w", "%{http_code}"] + arguments, in: dir.url)
        let statusText = result.stdout
        let headerText = (try? String(contentsOf: headerFile, encoding: .isoLatin1)) ?? ""
        // Keep only the last response's headers (after redirects or 100 Continue).
        let blocks = headerText.components(separatedBy: "\r\n\r\n").filter { !$0.isEmpty }
        var headers: [(String, String)] = []
        for line in (blocks.last ?? "").components(separatedBy: "\r\n").dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers.append((String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
        return CurlResult(exitCode: result.status, status: Int(statusText) ?? 0, headers: headers,
                          body: (try? Data(contentsOf: bodyFile)) ?? Data())
    }
}
#endif
