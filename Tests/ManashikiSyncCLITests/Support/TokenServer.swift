#if os(Linux) || os(macOS)
import Foundation
import ManashikiCore
import ManashikiProcess
import ManashikiTestSupport
import Testing

/// A small token service for the distribution registry's `auth: token:` setup: it checks a
/// Basic login (or issues anonymous tokens with no access) and answers
/// `{"token": JWT, "expires_in": …}`, the JWT signed RS256 with a key whose self-signed
/// certificate is the registry's `rootcertbundle` (the header's `kid` is libtrust's key id of
/// that key, as distribution 2.8 looks keys up). Signed with the `openssl` CLI. Plain http on
/// loopback (the registry never calls it; clients may use http to this machine).
final class TokenServer: @unchecked Sendable {
    let service = "manashiki-test-registry"
    let issuer = "manashiki-test-token-issuer"
    private let scratch = ScratchDirectory("token-server")
    var directory: URL { scratch.url }
    /// The signing key's certificate (the registry's rootcertbundle).
    var certificate: URL { directory.appendingPathComponent("token.pem") }
    private var origin: ScriptedOrigin!
    /// `http://127.0.0.1:PORT/token`.
    var realm: String { origin.url("/token").absoluteString }

    /// Every token request so far.
    var requests: [ScriptedRequest] { origin.requests }

    init(users: [String: String]) async throws {
        let directory = scratch.url
        for args in [["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "token.key", "-out", "token.pem", "-days", "2", "-subj", "/CN=manashiki test token signer"],
                     ["pkey", "-in", "token.key", "-pubout", "-outform", "DER", "-out", "token.pub.der"]] {
            let r = try await ExternalTool.run("openssl", args, in: directory)
            try #require(r.succeeded, "openssl \(args.joined(separator: " ")) failed: \(r.output)")
        }
        let der = try Data(contentsOf: directory.appendingPathComponent("token.pub.der"))
        let kid = Self.libtrustKeyID(der)
        let openssl = try Peer.openssl.require().path
        let (service, issuer, dir) = (self.service, self.issuer, directory)
        origin = try ScriptedOrigin { request in
            guard request.path == "/token" else { return [.send(ScriptedOrigin.response(404, reason: "Not Found", body: Data()))] }
            let query = URLComponents(string: "http://x" + request.target)?.queryItems ?? []
            var subject = ""
            if let auth = request.header("Authorization") {
                guard auth.hasPrefix("Basic "), let data = Data(base64Encoded: String(auth.dropFirst(6))),
                      let text = String(data: data, encoding: .utf8), let colon = text.firstIndex(of: ":"),
                      users[String(text[..<colon])] == String(text[text.index(after: colon)...]) else {
                    return ScriptedOrigin.json(#"{"details":"incorrect username or password"}"#, status: 401)
                }
                subject = String(text[..<colon])
            }
            // Logged-in users get what they ask for; anonymous requests get no access.
            var access: [[String: Any]] = []
            for scope in query.filter({ $0.name == "scope" }).compactMap(\.value) {
                let parts = scope.split(separator: ":")
                guard parts.count == 3, !subject.isEmpty else { continue }
                access.append(["type": String(parts[0]), "name": String(parts[1]), "actions": parts[2].split(separator: ",").map(String.init)])
            }
            let now = Int(Date().timeIntervalSince1970)
            let header: [String: Any] = ["typ": "JWT", "alg": "RS256", "kid": kid]
            let claims: [String: Any] = ["iss": issuer, "sub": subject, "aud": service, "exp": now + 300, "nbf": now - 30, "iat": now,
                                         "jti": UUID().uuidString, "access": access]
            guard let token = Self.sign(header: header, claims: claims, key: dir.appendingPathComponent("token.key"), openssl: openssl, in: dir) else {
                return ScriptedOrigin.json(#"{"details":"signing failed"}"#, status: 500)
            }
            return ScriptedOrigin.json(#"{"token": "\#(token)", "access_token": "\#(token)", "expires_in": 300}"#)
        }
    }

    func stop() {
        origin.stop()
        scratch.remove()
    }

    /// `header.claims.signature`, base64url, RS256 by `openssl dgst -sha256 -sign`.
    static func sign(header: [String: Any], claims: [String: Any], key: URL, openssl: String, in directory: URL) -> String? {
        guard let h = try? JSONSerialization.data(withJSONObject: header), let c = try? JSONSerialization.data(withJSONObject: claims) else { return nil }
        let input = base64URL(h) + "." + base64URL(c)
        let name = UUID().uuidString
        let inFile = directory.appendingPathComponent("\(name).in"), sigFile = directory.appendingPathComponent("\(name).sig")
        defer { try? FileManager.default.removeItem(at: inFile); try? FileManager.default.removeItem(at: sigFile) }
        guard (try? Data(input.utf8).write(to: inFile)) != nil else { return nil }
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: openssl)
        process.arguments = ["dgst", "-sha256", "-sign", key.path, "-out", sigFile.path, inFile.path]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return nil }
        process.waitUntilExit()
        guard process.terminationStatus == 0, let signature = try? Data(contentsOf: sigFile) else { return nil }
        return input + "." + base64URL(signature)
    }

    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// libtrust's key id: the SHA-256 of the DER public key, its first 240 bits in base32,
    /// in groups of four joined by ':'.
    static func libtrustKeyID(_ der: Data) -> String {
        let digest = Array(SHA256Hasher.hash(der).bytes.prefix(30))
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")
        var bits = 0, value = 0, out = ""
        for byte in digest {
            value = (value << 8) | Int(byte)
            bits += 8
            while bits >= 5 {
                out.append(alphabet[(value >> (bits - 5)) & 31])
                bits -= 5
            }
        }
        if bits > 0 { out.append(alphabet[(value << (5 - bits)) & 31]) }
        return stride(from: 0, to: out.count, by: 4).map { i in
            let start = out.index(out.startIndex, offsetBy: i)
            return String(out[start..<out.index(start, offsetBy: min(4, out.count - i))])
        }.joined(separator: ":")
    }
}
#endif
