import Foundation
@testable import Manashiki
import ManashikiCore
import Testing

/// Signature Version 4 against AWS's published expectations: the Signature Version 4 test suite
/// (docs.aws.amazon.com/general/latest/gr/signature-v4-test-suite.html; credentials AKIDEXAMPLE,
/// 2015-08-30T12:36:00Z, us-east-1, service `service`) and the S3 API reference's worked
/// examples ("Examples: Signature Calculations in AWS Signature Version 4", "Authenticating
/// Requests: Using Query Parameters"; AKIAIOSFODNN7EXAMPLE, 2013-05-24T00:00:00Z). The inputs and
/// the expected signatures are AWS's; the requests are rebuilt here.
@Suite("Signature Version 4")
struct SigV4SignerTests {
    static let suiteCredentials = AWSCredentials(accessKeyId: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", origin: "test")
    static let suiteDate = Date(timeIntervalSince1970: 1_440_938_160) // 2015-08-30T12:36:00Z
    static let s3Credentials = AWSCredentials(accessKeyId: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", origin: "test")
    static let s3Date = Date(timeIntervalSince1970: 1_369_353_600) // 2013-05-24T00:00:00Z

    /// A test-suite request: its path and query as the suite writes them (not yet encoded).
    static func suiteRequest(_ method: String, path: String, query: String? = nil, headers: [(String, String)] = []) -> HTTPRequest {
        var text = "https://example.amazonaws.com" + SigV4Canonical.encode(path, keepingSlash: true)
        if let query {
            text += "?" + query.split(separator: "&").map { pair in
                pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map { SigV4Canonical.encode(String($0)) }.joined(separator: "=")
            }.joined(separator: "&")
        }
        var request = HTTPRequest(method: method, url: URL(string: text)!)
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        return request
    }

    @Test("the test suite's requests get its signatures", arguments: [
        ("get-vanilla", "GET", "/", nil, [], "host;x-amz-date", "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"),
        ("get-unreserved", "GET", "/-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz", nil, [], "host;x-amz-date",
         "07ef7494c76fa4850883e2b006601f940f8a34d404d0cfa977f52a65bbf5f24f"),
        ("get-utf8", "GET", "/ሴ", nil, [], "host;x-amz-date", "8318018e0b0f223aa2bbf98705b62bb787dc9c0e678f255a891fd03141be5d85"),
        ("get-vanilla-empty-query-key", "GET", "/", "Param1=value1", [], "host;x-amz-date", "a67d582fa61cc504c4bae71f336f98b97f1ea3c7a6bfe1b6e45aec72011b9aeb"),
        ("get-vanilla-query-order-key", "GET", "/", "Param1=value2&Param1=Value1", [], "host;x-amz-date", "eedbc4e291e521cf13422ffca22be7d2eb8146eecf653089df300a15b2382bd1"),
        ("get-vanilla-query-order-key-case", "GET", "/", "Param2=value2&Param1=value1", [], "host;x-amz-date", "b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500"),
        ("get-vanilla-query-order-value", "GET", "/", "Param1=value2&Param1=value1", [], "host;x-amz-date", "5772eed61e12b33fae39ee5e7012498b51d56abc0abb7c60486157bd471c4694"),
        ("get-vanilla-query-unreserved", "GET", "/",
         "-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz=-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz", [],
         "host;x-amz-date", "9c3e54bfcdf0b19771a7f523ee5669cdf59bc7cc0884027167c21bb143a40197"),
        ("get-vanilla-utf8-query", "GET", "/", "ሴ=bar", [], "host;x-amz-date", "2cdec8eed098649ff3a119c94853b13c643bcf08f8b0a1d91e12c9027818dd04"),
        ("get-header-key-duplicate", "GET", "/", nil, [("My-Header1", "value2"), ("My-Header1", "value2"), ("My-Header1", "value1")],
         "host;my-header1;x-amz-date", "c9d5ea9f3f72853aea855b47ea873832890dbdd183b4468f858259531a5138ea"),
        ("get-header-value-order", "GET", "/", nil, [("My-Header1", "value4"), ("My-Header1", "value1"), ("My-Header1", "value3"), ("My-Header1", "value2")],
         "host;my-header1;x-amz-date", "08c7e5a9acfcfeb3ab6b2185e75ce8b1deb5e634ec47601a50643f830c755c01"),
        ("get-header-value-trim", "GET", "/", nil, [("My-Header1", " value1"), ("My-Header2", " \"a   b   c\"")],
         "host;my-header1;my-header2;x-amz-date", "acc3ed3afb60bb290fc8d2dd0098b9911fcaa05412b367055dee359757a9c736"),
        ("post-vanilla", "POST", "/", nil, [], "host;x-amz-date", "5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b"),
        ("post-vanilla-query", "POST", "/", "Param1=value1", [], "host;x-amz-date", "28038455d6de14eafc1f9222cf5aa6f1a96197d7deb8263271d420d138af7f11"),
        ("post-header-key-sort", "POST", "/", nil, [("My-Header1", "value1")], "host;my-header1;x-amz-date", "c5410059b04c1ee005303aed430f6e6645f61f4dc9e1461ec8f8916fdf18852c"),
        ("post-header-value-case", "POST", "/", nil, [("My-Header1", "VALUE1")], "host;my-header1;x-amz-date", "cdbc9802e29d2942e5e10b5bccfdd67c5f22c7c4e8ae67b53629efa58b974b7d"),
        // normalize-path: every service but S3 removes dot and empty segments.
        ("get-relative", "GET", "/example/..", nil, [], "host;x-amz-date", "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"),
        ("get-relative-relative", "GET", "/example1/example2/../..", nil, [], "host;x-amz-date", "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"),
        ("get-slash", "GET", "//", nil, [], "host;x-amz-date", "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"),
        ("get-slash-dot-slash", "GET", "/./", nil, [], "host;x-amz-date", "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"),
        ("get-slash-pointless-dot", "GET", "/./example", nil, [], "host;x-amz-date", "ef75d96142cf21edca26f06005da7988e4f8dc83a165a80865db7089db637ec5"),
        ("get-slashes", "GET", "//example//", nil, [], "host;x-amz-date", "9a624bd73a37c9a373b5312afbebe7a714a789de108f0bdfe846570885f57e84"),
        ("get-space", "GET", "/example space/", nil, [], "host;x-amz-date", "652487583200325589f1fba4c7e578f72c47cb61beeca81406b39ddec1366741"),
    ] as [(String, String, String, String?, [(String, String)], String, String)])
    func suite(name: String, method: String, path: String, query: String?, headers: [(String, String)], signedHeaders: String, signature: String) {
        let signer = SigV4Signer(region: "us-east-1", service: "service")
        let signed = signer.sign(Self.suiteRequest(method, path: path, query: query, headers: headers), credentials: Self.suiteCredentials,
                                 date: Self.suiteDate, payloadHash: SigV4Signer.emptyPayloadHash)
        #expect(signed.headers["Authorization"] == "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, SignedHeaders=\(signedHeaders), Signature=\(signature)", "\(name)")
        #expect(signed.headers["X-Amz-Date"] == "20150830T123600Z")
    }

    @Test("the test suite's canonical request and string to sign (get-vanilla-query-order-key-case)")
    func suiteCanonicalForms() {
        let signer = SigV4Signer(region: "us-east-1", service: "service")
        var request = Self.suiteRequest("GET", path: "/", query: "Param2=value2&Param1=value1")
        request.headers["X-Amz-Date"] = "20150830T123600Z"
        let (canonical, signed) = signer.canonicalRequest(request, payloadHash: SigV4Signer.emptyPayloadHash)
        #expect(canonical == "GET\n/\nParam1=value1&Param2=value2\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(signed == "host;x-amz-date")
        #expect(signer.stringToSign(canonical, timestamp: "20150830T123600Z", scope: signer.scope(day: "20150830"))
            == "AWS4-HMAC-SHA256\n20150830T123600Z\n20150830/us-east-1/service/aws4_request\n816cd5b414d056048ba4f7c5386d6e0533120fb1fcfa93762cf0fc39e2cf19e0")
    }

    @Test("a session token is added and signed (the suite's post-sts-header-before)")
    func sessionToken() {
        let token = "AQoDYXdzEPT//////////wEXAMPLEtc764bNrC9SAPBSM22wDOk4x4HIZ8j4FZTwdQWLWsKWHGBuFqwAeMicRXmxfpSPfIeoIYRqTflfKD8YUuwthAx7mSEI/qkPpKPi/kMcGdQrmGdeehM4IC1NtBmUpp2wUE8phUZampKsburEDy0KPkyQDYwT7WZ0wq5VSXDvp75YU9HFvlRd8Tx6q6fE8YQcHNVXAkiY9q6d+xo0rKwT38xVqr7ZD0u0iPPkUL64lIZbqBAz+scqKmlzm8FDrypNC9Yjc8fPOLn9FX9KSYvKTr4rvx3iSIlTJabIQwj2ICCR/oLxBA=="
        var credentials = Self.suiteCredentials
        credentials.sessionToken = token
        let signed = SigV4Signer(region: "us-east-1", service: "service").sign(Self.suiteRequest("POST", path: "/"), credentials: credentials,
                                                                               date: Self.suiteDate, payloadHash: SigV4Signer.emptyPayloadHash)
        #expect(signed.headers["X-Amz-Security-Token"] == token)
        #expect(signed.headers["Authorization"] == "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, SignedHeaders=host;x-amz-date;x-amz-security-token, Signature=85d96828115b5dc0cfc3bd16ad9e210dd772bbebba041836c64533a82be05ead")
    }

    @Test("the signing key of AWS's derivation example (iam, 20120215)")
    func signingKey() {
        let key = SigV4Signer(region: "us-east-1", service: "iam").signingKey(secret: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", day: "20120215")
        #expect(Hex.encode(key) == "f4780e2d9f65fa895f9c67b32ce1baf0b0d8a43505a000a1a9e090d414db404d")
    }

    @Test("S3: GET Object with Range, the S3 reference's example")
    func s3GetWithRange() {
        let request = HTTPRequest(url: URL(string: "https://examplebucket.s3.amazonaws.com/test.txt")!, headers: ["Range": "bytes=0-9"])
        let signed = SigV4Signer(region: "us-east-1").sign(request, credentials: Self.s3Credentials, date: Self.s3Date, payloadHash: SigV4Signer.emptyPayloadHash)
        #expect(signed.headers["X-Amz-Content-SHA256"] == SigV4Signer.emptyPayloadHash)
        #expect(signed.headers["Authorization"] == "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41")
    }

    @Test("S3: PUT Object of a key with '$', the S3 reference's example (payload hash of the body)")
    func s3Put() {
        let body = Data("Welcome to Amazon S3.".utf8)
        let hash = SHA256Hasher.hash(body).hex
        #expect(hash == "44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072")
        let url = URL(string: "https://examplebucket.s3.amazonaws.com/" + SigV4Canonical.encode("test$file.text", keepingSlash: true))!
        let request = HTTPRequest(method: "PUT", url: url, headers: ["Date": "Fri, 24 May 2013 00:00:00 GMT", "x-amz-storage-class": "REDUCED_REDUNDANCY"], body: body)
        let signer = SigV4Signer(region: "us-east-1")
        let signed = signer.sign(request, credentials: Self.s3Credentials, date: Self.s3Date, payloadHash: hash)
        #expect(signer.canonicalRequest(signed, payloadHash: hash).0.split(separator: "\n").dropFirst().first == "/test%24file.text")
        #expect(signed.headers["Authorization"] == "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, SignedHeaders=date;host;x-amz-content-sha256;x-amz-date;x-amz-storage-class, Signature=98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd")
    }

    @Test("S3: GET Bucket lifecycle and List Objects, the S3 reference's examples", arguments: [
        ("lifecycle", "fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543"),
        ("max-keys=2&prefix=J", "34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7"),
    ])
    func s3BucketQueries(query: String, signature: String) {
        let request = HTTPRequest(url: URL(string: "https://examplebucket.s3.amazonaws.com/?\(query)")!)
        let signed = SigV4Signer(region: "us-east-1").sign(request, credentials: Self.s3Credentials, date: Self.s3Date, payloadHash: SigV4Signer.emptyPayloadHash)
        #expect(signed.headers["Authorization"] == "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, SignedHeaders=host;x-amz-content-sha256;x-amz-date, Signature=\(signature)")
    }

    @Test("S3: a presigned GET, the S3 reference's query-string example")
    func s3Presign() throws {
        let url = try #require(SigV4Signer(region: "us-east-1").presign(URL(string: "https://examplebucket.s3.amazonaws.com/test.txt")!,
                                                                        credentials: Self.s3Credentials, date: Self.s3Date, expires: 86400))
        #expect(url.absoluteString == "https://examplebucket.s3.amazonaws.com/test.txt?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20130524T000000Z&X-Amz-Expires=86400&X-Amz-SignedHeaders=host&X-Amz-Signature=aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404")
    }

    @Test("S3: every byte of a key outside the unreserved set is encoded once, slashes kept, nothing normalised", arguments: [
        ("a b/ü+$.bin", "/a%20b/%C3%BC%2B%24.bin"),
        ("models/./x/../y//z", "/models/./x/../y//z"),
        ("~tilde-_.", "/~tilde-_."),
        ("100%", "/100%25"),
        ("q?#&=", "/q%3F%23%26%3D"),
    ])
    func s3KeyEncoding(key: String, canonicalURI: String) {
        let url = URL(string: "https://b.s3.amazonaws.com/" + SigV4Canonical.encode(key, keepingSlash: true))!
        let (canonical, _) = SigV4Signer(region: "us-east-1").canonicalRequest(HTTPRequest(url: url), payloadHash: SigV4Signer.emptyPayloadHash)
        #expect(canonical.split(separator: "\n", omittingEmptySubsequences: false)[1] == Substring(canonicalURI))
    }

    @Test("the host is signed with its port unless it is the scheme's default", arguments: [
        ("http://127.0.0.1:8333/b/k", "127.0.0.1:8333"), ("https://s3.example:443/b/k", "s3.example"), ("http://S3.Example:80/k", "s3.example"),
        ("https://minio.site:9000/b", "minio.site:9000"),
    ])
    func hostHeader(url: String, host: String) {
        #expect(SigV4Canonical.host(of: URL(string: url)!) == host)
    }

    @Test("x-amz-request-payer and x-amz-meta-* are signed; User-Agent and Expect are not")
    func signedHeaderSelection() {
        let request = HTTPRequest(method: "PUT", url: URL(string: "https://b.s3.amazonaws.com/k")!,
                                  headers: ["User-Agent": "manashiki", "Expect": "", "x-amz-request-payer": "requester", "x-amz-meta-sha256": "ab", "Content-Type": "application/octet-stream"])
        let signed = SigV4Signer(region: "eu-west-1").sign(request, credentials: Self.s3Credentials, date: Self.s3Date, payloadHash: SigV4Signer.unsignedPayload)
        #expect(signed.headers["Authorization"]?.contains("SignedHeaders=content-type;host;x-amz-content-sha256;x-amz-date;x-amz-meta-sha256;x-amz-request-payer,") == true)
    }

    @Test("the secret never appears in a signed request, a presigned URL or the credentials' description")
    func secretStaysOut() throws {
        var credentials = Self.s3Credentials
        credentials.sessionToken = "session-token-value"
        let signer = SigV4Signer(region: "us-east-1")
        let signed = signer.sign(HTTPRequest(url: URL(string: "https://b.s3.amazonaws.com/k")!), credentials: credentials, date: Self.s3Date, payloadHash: SigV4Signer.emptyPayloadHash)
        let everything = signed.headers.fields.map { "\($0.name): \($0.value)" }.joined(separator: "\n") + signed.url.absoluteString
        #expect(!everything.contains(credentials.secretAccessKey))
        let presigned = try #require(signer.presign(signed.url, credentials: credentials, date: Self.s3Date, expires: 60))
        #expect(!presigned.absoluteString.contains(credentials.secretAccessKey))
        for text in ["\(credentials)", String(reflecting: credentials), { var s = ""; dump(credentials, to: &s); return s }()] {
            #expect(!text.contains(credentials.secretAccessKey) && !text.contains("session-token-value"))
        }
    }

    @Test("timestamps across the calendar", arguments: [
        (0.0, "19700101T000000Z"), (951_782_400.0, "20000229T000000Z"), (1_709_251_199.0, "20240229T235959Z"), (4_102_444_800.0, "21000101T000000Z"),
    ])
    func timestamps(seconds: Double, text: String) {
        #expect(SigV4Canonical.timestamp(Date(timeIntervalSince1970: seconds)).full == text)
    }
}
