import Foundation
import Testing
import ManashikiTestSupport
@testable import manashiki_bench

@Suite("the network suite's reading of nginx's access log")
struct NginxAccessLogTests {
    @Test("one plain GET: one connection, one request, nothing ranged")
    func singleStream() {
        let s = NginxAccessLog.summarize("7 GET 200 268435456 \"-\"\n")
        #expect(s == NginxAccessLog.Summary(requests: 1, connections: 1, rangedRequests: 0, bytes: 268_435_456, failures: 0))
    }

    @Test("ranged GETs over several connections, a HEAD ignored, a failure counted, garbage skipped")
    func parallel() {
        let text = """
        3 HEAD 200 0 "-"
        4 GET 206 8388608 "bytes=0-8388607"
        5 GET 206 8388608 "bytes=8388608-16777215"
        4 GET 206 4096 "bytes=16777216-16781311"
        6 GET 503 197 "bytes=16781312-33554431"
        not a log line
        """
        let s = NginxAccessLog.summarize(text)
        #expect(s == NginxAccessLog.Summary(requests: 4, connections: 3, rangedRequests: 4, bytes: 8_388_608 * 2 + 4096 + 197, failures: 1))
    }

    #if os(Linux)
    @Test("what nginx itself writes in that format adds up: a ranged and a whole GET over two connections", .requires(.nginx))
    func realNginx() throws {
        let scratch = ScratchDirectory("nginx-log")
        let www = try scratch.directory("www")
        try Data(repeating: 7, count: 1 << 20).write(to: www.appendingPathComponent("blob"))
        let nginx = try Nginx(root: www, workdir: scratch.url, options: Nginx.Options(limitRate: "64m", accessLog: true))
        defer { nginx.stop() }
        let log = try #require(nginx.accessLog)
        log.reset()
        #expect(try Child.run(["curl", "-sS", "-o", "/dev/null", "-r", "0-1023", nginx.origin + "/blob"]).status == 0)
        #expect(try Child.run(["curl", "-sS", "-o", "/dev/null", nginx.origin + "/blob"]).status == 0)
        #expect(log.read(untilBytes: 1024 + (1 << 20)) == NginxAccessLog.Summary(requests: 2, connections: 2, rangedRequests: 1, bytes: 1024 + (1 << 20), failures: 0))
    }
    #endif
}
