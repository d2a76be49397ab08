#if os(Linux) || os(macOS) // python3's fnmatch as the reference (ManashikiProcess: Linux and macOS)
import Foundation
@testable import Manashiki
import ManashikiTestSupport
import Testing

/// Delegation path patterns agree with python-tuf's (`fnmatch.fnmatchcase` per `/`-part).
@Suite("TUF path patterns", .requires(.python3))
struct TUFPathPatternTests {
    static let cases: [(String, String)] = [
        ("models/tiny/1.0.0.bin", "models/*/*.bin"), ("models/tiny/1.0.0.bin", "models/*"),
        ("models/tiny/1.0.0.bin", "models/t?ny/*"), ("a/b", "a/[ab]"), ("a/c", "a/[!ab]"), ("a/-", "a/[a-]"),
        ("a/[", "a/["), ("a/]", "a/[]]"), ("x", "*"), ("", "*"), ("a.bin", "*.BIN"), ("abc", "a*c*"),
        ("team-a/trusted_root.json", "team-a/*"), ("team-b/x", "team-a/*"), ("a/b/c", "a/*"), ("é", "?"),
    ]

    @Test("each case matches exactly when Python's fnmatchcase does")
    func agreesWithPython() throws {
        let script = "import sys, json, fnmatch\ncases = json.loads(sys.argv[1])\n"
            + "print(json.dumps([len(t.split('/')) == len(p.split('/')) and all(fnmatch.fnmatchcase(a, b) for a, b in zip(t.split('/'), p.split('/'))) for t, p in cases]))"
        let json = String(decoding: try JSONSerialization.data(withJSONObject: Self.cases.map { [$0.0, $0.1] }), as: UTF8.self)
        let python = RunningChild.run(try Peer.python3.require(), ["-c", script, json], environment: Peer.environment, path: Peer.searchPath)
        let expected = try #require(try JSONSerialization.jsonObject(with: Data(python.stdout.utf8)) as? [Bool])
        for (i, (path, pattern)) in Self.cases.enumerated() {
            #expect(TUFPathPattern.matches(path, pattern: pattern) == expected[i], "\(path) ~ \(pattern)")
        }
    }

    @Test("expires is read in its one form, and written back the same")
    func expires() {
        #expect(TUFTime.parse("2030-02-28T23:59:59Z") == Date(timeIntervalSince1970: 1_898_553_599))
        #expect(TUFTime.format(Date(timeIntervalSince1970: 1_898_553_599)) == "2030-02-28T23:59:59Z")
        for bad in ["2030-02-29T00:00:00Z", "2030-02-28T23:59:59.5Z", "2030-02-28T23:59:59+00:00", "2030-2-28T23:59:59Z", "2030-02-28 23:59:59Z"] {
            #expect(TUFTime.parse(bad) == nil, "\(bad)")
        }
    }
}
#endif
