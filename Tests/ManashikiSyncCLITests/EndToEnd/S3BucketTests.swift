#if os(Linux) || os(macOS)
import Foundation
import ManashikiCore
import ManashikiTestSupport
import ManashikiLoopback
import Manashiki
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Buckets with real parts: SeaweedFS (`weed mini`, enforcing Signature Version 4, an admin and
/// a read-only identity), the built binary, and independent clients reading what `export
/// s3://` wrote: the AWS CLI (`aws s3api`), boto3 and rclone.
@Suite("S3 buckets: export s3:// to SeaweedFS, read back by the AWS CLI, boto3 and rclone; refusals, interruptions, credentials",
       .requires(.weed, .aws, .curl))
struct S3BucketTests {
    @Test("export s3:// writes the bundle layout (single PUT and multipart, x-amz-meta-sha256, index.json last) under a prefix with a space and non-ASCII; the AWS CLI, boto3 and rclone read the same bytes; a second export sends nothing", .requires(.boto3, .rclone))
    func exportReadByIndependentClients() async throws {
        let s3 = try await S3Fixture.shared()
        let fixture = try await S3Fixture.synced()
        let prefix = S3Fixture.prefix("export")
        let url = "s3://models/\(prefix)"
        let env = fixture.environment(SeaweedS3.admin)
        let export = try await fixture.run(["export", url, "--endpoint", s3.endpoint.absoluteString, "--chunk-size", "5M", "--json"], environment: env)
        #expect(export.status == 0, "\(export.all)")
        let summary = export.summary()
        #expect((summary["uploaded"] as? [[String: Any]])?.count == 2 && summary["credentials"] as? String == "environment", "\(summary)")
        #expect(summary["bytesUploaded"] as? Int == (64 << 10) + S3Fixture.largeSize && summary["indexEntries"] as? Int == 2)
        let blobKeys = ["small", "large"].map { "\(prefix)blobs/sha256/\(fixture.sha256($0))" }
        #expect(try await S3Fixture.keys(s3, prefix: prefix) == (blobKeys + ["\(prefix)index.json"]).sorted())

        // The AWS CLI: the metadata, the size, the multipart ETag (3 parts of 5 MiB), the bytes.
        for (id, key) in zip(["small", "large"], blobKeys) {
            let (_, head) = try await S3Fixture.aws(s3, ["s3api", "head-object", "--bucket", "models", "--key", key])
            let object = try #require(head as? [String: Any])
            #expect((object["Metadata"] as? [String: String])?["sha256"] == fixture.sha256(id), "\(object)")
            #expect(object["ContentLength"] as? Int == fixture.expected(id).count)
            if id == "large" { #expect((object["ETag"] as? String)?.hasSuffix("-3\"") == true, "\(object)") }
            let out = fixture.directory.appendingPathComponent("aws-\(id).bin")
            let (get, _) = try await S3Fixture.aws(s3, ["s3api", "get-object", "--bucket", "models", "--key", key, out.path])
            #expect(get.succeeded && FileManager.default.contents(atPath: out.path) == fixture.expected(id), "\(get.output)")
        }
        // boto3 reads index.json and checks every blob it names against its SHA-256.
        let script = """
        import boto3, hashlib, json, sys
        s3 = boto3.client("s3", endpoint_url=sys.argv[1], region_name="us-east-1")
        index = json.loads(s3.get_object(Bucket="models", Key=sys.argv[2] + "index.json")["Body"].read())
        for m in index["models"]:
            body = s3.get_object(Bucket="models", Key=sys.argv[2] + "blobs/sha256/" + m["sha256"])["Body"].read()
            assert hashlib.sha256(body).hexdigest() == m["sha256"] and len(body) == m["size"], m["modelId"]
            print(m["modelId"], m["version"])
        """
        let boto = try await ExternalTool.run("/usr/bin/env", S3Fixture.credentials(SeaweedS3.admin) + ["python3", "-c", script, s3.endpoint.absoluteString, prefix])
        #expect(boto.succeeded && boto.output.contains("large 2.0.0") && boto.output.contains("small 1.0.0"), "\(boto.output)")
        // rclone, configured from its environment, copies the large blob out.
        let rcloneEnv = ["RCLONE_CONFIG_SW_TYPE=s3", "RCLONE_CONFIG_SW_PROVIDER=SeaweedFS", "RCLONE_CONFIG_SW_ENDPOINT=\(s3.endpoint.absoluteString)",
                         "RCLONE_CONFIG_SW_ACCESS_KEY_ID=\(SeaweedS3.admin.accessKey)", "RCLONE_CONFIG_SW_SECRET_ACCESS_KEY=\(SeaweedS3.admin.secretKey)"]
        let copied = fixture.directory.appendingPathComponent("rclone")
        let rclone = try await ExternalTool.run("/usr/bin/env", rcloneEnv + ["rclone", "--config", "/dev/null", "copyto", "sw:models/\(blobKeys[1])", copied.path])
        #expect(rclone.succeeded && FileManager.default.contents(atPath: copied.path) == fixture.expected("large"), "\(rclone.output)")

        // Again: both blobs are there with the same size and x-amz-meta-sha256, so nothing is sent.
        let again = try await fixture.run(["export", url, "--endpoint", s3.endpoint.absoluteString, "--json"], environment: env)
        #expect(again.status == 0 && (again.summary()["present"] as? [[String: Any]])?.count == 2 && again.summary()["bytesUploaded"] as? Int == 0, "\(again.all)")
        for output in [export.all, again.all] { #expect(!output.contains(SeaweedS3.admin.secretKey)) }
    }

    @Test("a wrong secret: exit 1 (never 2), naming GetObject, the key, HTTP 403 and SignatureDoesNotMatch, with what to do; nothing written, no secret shown")
    func wrongSecret() async throws {
        let s3 = try await S3Fixture.shared()
        let fixture = try await S3Fixture.synced()
        let prefix = S3Fixture.prefix("wrong")
        var wrong = SeaweedS3.admin
        wrong.secretKey = "Kq7WrongSecret/0123456789abcdefghijklm"
        let run = try await fixture.run(["export", "s3://models/\(prefix)", "--endpoint", s3.endpoint.absoluteString, "--json"], environment: fixture.environment(wrong))
        #expect(run.status == 1, "\(run.all)")
        #expect(run.stderr.contains("S3 GetObject s3://models/\(prefix)index.json: HTTP 403 SignatureDoesNotMatch"), "\(run.stderr)")
        #expect(run.stderr.contains("the secret of the credentials from environment does not match"), "\(run.stderr)")
        #expect(run.summary()["outcome"] as? String == "failed")
        #expect(!run.all.contains(wrong.secretKey) && !run.all.contains(SeaweedS3.admin.secretKey))
        #expect(try await S3Fixture.keys(s3, prefix: prefix).isEmpty)
    }

    @Test("a read-only identity exporting: exit 1 with 403 AccessDenied naming s3:PutObject; nothing half-written (no object, no multipart upload)")
    func readOnlyIdentity() async throws {
        let s3 = try await S3Fixture.shared()
        let fixture = try await S3Fixture.synced()
        let prefix = S3Fixture.prefix("readonly")
        let run = try await fixture.run(["export", "s3://models/\(prefix)", "--endpoint", s3.endpoint.absoluteString, "--chunk-size", "5M"],
                                        environment: fixture.environment(SeaweedS3.reader))
        #expect(run.status == 1, "\(run.all)")
        #expect(run.stderr.contains("HTTP 403 AccessDenied") && run.stderr.contains("may not s3:PutObject on arn:aws:s3:::models/\(prefix)"), "\(run.stderr)")
        #expect(try await S3Fixture.keys(s3, prefix: prefix).isEmpty)
        #expect(try await S3Fixture.uploads(s3, prefix: prefix).isEmpty)
    }

    @Test("an interrupted export: SIGTERM mid-multipart exits 143 and aborts the upload; after kill -9 the next export aborts what was left, then completes")
    func interruptedExport() async throws {
        let s3 = try await S3Fixture.shared()
        // 1 MiB/s: the 12 MiB blob's multipart upload takes about ten seconds, so the signal lands inside it.
        let fixture = try await S3Fixture.synced(policies: #"{"checkCompatibility": false, "retry": {"maxAttempts": 1}, "maxBytesPerSecond": 1048576}"#)
        let env = fixture.environment(SeaweedS3.admin)
        for signal in [SIGTERM, SIGKILL] {
            let prefix = S3Fixture.prefix(signal == SIGTERM ? "term" : "kill")
            let child = try fixture.start(["export", "s3://models/\(prefix)", "--endpoint", s3.endpoint.absoluteString, "--chunk-size", "5M", "--concurrency", "1"], environment: env)
            // Polled with curl --aws-sigv4 (the AWS CLI takes seconds to start on a loaded machine;
            // curl 7.88 signs a query right only when it is sorted and every name has an '=').
            let query = "/models?prefix=" + prefix.addingPercentEncoding(withAllowedCharacters: .alphanumerics)! + "&uploads="
            var started = false
            for _ in 0..<300 where !started {
                started = s3.get(query)?.contains("<UploadId>") == true
                if !started { try await Task.sleep(for: .milliseconds(50)) }
            }
            #expect(started, "no multipart upload appeared")
            child.send(signal)
            let result = await child.finish(timeout: 30)
            if signal == SIGTERM { #expect(result.status == 143 && !result.signalled, "\(result.all)") } else { #expect(result.signalled && result.status == SIGKILL) }
            #expect(!(try await S3Fixture.keys(s3, prefix: prefix).contains("\(prefix)index.json")))
            if signal == SIGTERM {
                #expect(try await S3Fixture.uploads(s3, prefix: prefix).isEmpty, "SIGTERM left a multipart upload")
            } else {
                #expect(try await S3Fixture.uploads(s3, prefix: prefix).count == 1)
                let next = try await fixture.run(["export", "s3://models/\(prefix)", "--endpoint", s3.endpoint.absoluteString, "--chunk-size", "5M", "--json"],
                                                 environment: env, timeout: 120)
                #expect(next.status == 0, "\(next.all)")
                #expect((next.summary()["abortedUploads"] as? [String]) == ["\(prefix)blobs/sha256/\(fixture.sha256("large"))"], "\(next.summary())")
                #expect(try await S3Fixture.uploads(s3, prefix: prefix).isEmpty)
            }
        }
    }

    @Test("URLs export cannot write are refused with exit 2, and no directory named after the scheme is created", arguments: ["gs://models/x", "s3:/models/x", "https://models.example/x", "oci:models"])
    func refusedURLs(url: String) async throws {
        let fixture = try await S3Fixture.synced()
        let run = try await fixture.run(["export", url, "--json"])
        #expect(run.status == 2, "\(run.all)")
        #expect(run.summary()["outcome"] as? String == "usage-error", "\(run.all)")
        let scheme = String(url.prefix { $0 != ":" })
        #expect(!FileManager.default.fileExists(atPath: fixture.directory.appendingPathComponent(scheme + ":").path))
    }

    @Test("credentials from a profile of ~/.aws/credentials (AWS_PROFILE), named in --json, never shown")
    func profileCredentials() async throws {
        let s3 = try await S3Fixture.shared()
        let fixture = try await S3Fixture.synced()
        let aws = fixture.directory.appendingPathComponent(".aws")
        try FileManager.default.createDirectory(at: aws, withIntermediateDirectories: true)
        try Data("[bucket-writer]\naws_access_key_id = \(SeaweedS3.admin.accessKey)\naws_secret_access_key = \(SeaweedS3.admin.secretKey)\n".utf8)
            .write(to: aws.appendingPathComponent("credentials"))
        let prefix = S3Fixture.prefix("profile")
        let env = fixture.environment.merging(["AWS_PROFILE": "bucket-writer", "AWS_EC2_METADATA_DISABLED": "true"]) { $1 }
        let run = try await fixture.run(["export", "s3://models/\(prefix)", "--endpoint", s3.endpoint.absoluteString, "--json"], environment: env)
        #expect(run.status == 0, "\(run.all)")
        #expect(run.summary()["credentials"] as? String == "profile bucket-writer (\(aws.path)/credentials)", "\(run.summary())")
        #expect(!run.all.contains(SeaweedS3.admin.secretKey))
    }

    /// An STS stand-in (no real STS runs here): Python's http.server answering
    /// AssumeRoleWithWebIdentity for one role and one token with the admin identity's keys.
    /// SeaweedFS refuses session tokens it did not issue, so these credentials carry none (the
    /// session token's signing is checked against AWS's examples in `SigV4SignerTests`).
    static let stsStandIn = """
    import http.server, sys, urllib.parse, datetime
    role, token, key, secret, ready, log = sys.argv[1:7]
    class STS(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            form = urllib.parse.parse_qs(self.rfile.read(int(self.headers["Content-Length"])).decode())
            ok = form.get("Action") == ["AssumeRoleWithWebIdentity"] and form.get("RoleArn") == [role] and form.get("WebIdentityToken") == [token]
            open(log, "a").write("%s %s\\n" % (ok, self.headers.get("Authorization")))
            expires = (datetime.datetime.utcnow() + datetime.timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
            body = ("<AssumeRoleWithWebIdentityResponse><AssumeRoleWithWebIdentityResult><Credentials><AccessKeyId>%s</AccessKeyId>"
                    "<SecretAccessKey>%s</SecretAccessKey><Expiration>%s</Expiration></Credentials></AssumeRoleWithWebIdentityResult>"
                    "</AssumeRoleWithWebIdentityResponse>" % (key, secret, expires)) if ok else (
                    "<ErrorResponse><Error><Code>InvalidIdentityToken</Code><Message>bad token</Message></Error></ErrorResponse>")
            self.send_response(200 if ok else 400)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body.encode())
        def log_message(self, *args): pass
    server = http.server.HTTPServer(("127.0.0.1", 0), STS)
    open(ready, "w").write(str(server.server_address[1]))
    server.serve_forever()
    """

    @Test("web identity (IRSA): the token file exchanged at an STS stand-in for credentials, unsigned; a refused token exits 1 naming InvalidIdentityToken", .requires(.python3))
    func webIdentity() async throws {
        let s3 = try await S3Fixture.shared()
        let fixture = try await S3Fixture.synced()
        let dir = fixture.directory
        try Data(Self.stsStandIn.utf8).write(to: dir.appendingPathComponent("sts.py"))
        try Data("eyJhbGciOi.projected-token.sig\n".utf8).write(to: dir.appendingPathComponent("token"))
        let role = "arn:aws:iam::123456789012:role/models-writer"
        let python = try #require(Peer.python3.executable)
        let sts = try RunningChild.start(python, ["sts.py", role, "eyJhbGciOi.projected-token.sig", SeaweedS3.admin.accessKey, SeaweedS3.admin.secretKey,
                                                                        dir.appendingPathComponent("sts.port").path, dir.appendingPathComponent("sts.log").path], in: dir)
        defer { sts.send(SIGKILL) }
        #expect(await sts.wait(timeout: 20) { FileManager.default.contents(atPath: dir.appendingPathComponent("sts.port").path)?.isEmpty == false })
        let port = try #require(Int(String(decoding: FileManager.default.contents(atPath: dir.appendingPathComponent("sts.port").path) ?? Data(), as: UTF8.self)))
        var env = fixture.environment.merging(["AWS_ROLE_ARN": role, "AWS_WEB_IDENTITY_TOKEN_FILE": dir.appendingPathComponent("token").path,
                                               "AWS_ENDPOINT_URL_STS": "http://127.0.0.1:\(port)", "AWS_EC2_METADATA_DISABLED": "true"]) { $1 }
        let prefix = S3Fixture.prefix("irsa")
        let run = try await fixture.run(["export", "s3://models/\(prefix)", "--endpoint", s3.endpoint.absoluteString, "--json"], environment: env)
        #expect(run.status == 0, "\(run.all)")
        #expect((run.summary()["credentials"] as? String)?.hasPrefix("web identity (\(role), token file ") == true, "\(run.summary())")
        let log = String(decoding: FileManager.default.contents(atPath: dir.appendingPathComponent("sts.log").path) ?? Data(), as: UTF8.self)
        #expect(log == "True None\n", "\(log)")                                            // one exchange, no Authorization sent to STS
        try Data("another-token\n".utf8).write(to: dir.appendingPathComponent("token"))
        env["AWS_ROLE_ARN"] = role
        let refused = try await fixture.run(["export", "s3://models/\(S3Fixture.prefix("irsa-refused"))", "--endpoint", s3.endpoint.absoluteString], environment: env)
        #expect(refused.status == 1 && refused.stderr.contains("InvalidIdentityToken") && refused.stderr.contains(role), "\(refused.all)")
        #expect(!refused.all.contains("another-token") && !run.all.contains("projected-token"))
    }
}
#endif
