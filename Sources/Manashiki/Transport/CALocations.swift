import Foundation

/// Where libcurl (`CurlTransport`) finds the CAs to verify servers with: its `CURLOPT_CAINFO`
/// file and `CURLOPT_CAPATH` directory; nil keeps libcurl's built-in default for that slot
/// (on Debian `/etc/ssl/certs/ca-certificates.crt` and `/etc/ssl/certs`). The same locations
/// verify an `https://` proxy (`CURLOPT_PROXY_CAINFO`, `_CAPATH`, `_CAINFO_BLOB`).
///
/// An explicit bundle is added to the system's trust, not put in its place: libcurl gets the
/// bundle's PEM followed by its own built-in CA file's (`CURLOPT_CAINFO_BLOB`, which replaces
/// the CA file), and its CA directory stays; a libcurl older than 7.77 gets the bundle as its
/// CA file (its directory still trusted, as on Debian and Ubuntu).
///
/// Precedence: an explicit `TLSTrust.caBundle` (the manifest's `registry.caBundle`, the CLI's
/// `--ca-bundle`, or the app's code) > the environment > libcurl's defaults.
///
/// The environment is read as the curl tool reads it (libcurl itself reads none of these; nor
/// does it let OpenSSL read `SSL_CERT_FILE`/`SSL_CERT_DIR`, since it always names its own
/// default file and directory): `CURL_CA_BUNDLE` names the CA file, and when it is set the
/// other two are ignored; otherwise `SSL_CERT_FILE` names the CA file and `SSL_CERT_DIR` the
/// CA directory (`:`-separated, prepared with `openssl rehash`). Each variable replaces its own
/// slot only, as in curl and OpenSSL: with just `SSL_CERT_FILE` set, the default directory
/// still counts. An empty variable counts as unset.
///
/// Files are read once, here (when the transport is made: once per `manashiki-sync` run, also
/// in loop mode), never per request: a bundle or a `CURL_CA_BUNDLE`/`SSL_CERT_FILE` file goes
/// to libcurl as PEM bytes, so a file rotated or removed during a run changes nothing until
/// the next run, which reads it again. (A CA directory is looked up by OpenSSL as needed.)
struct CALocations: Sendable, Equatable {
    /// `CURLOPT_CAINFO`, or nil for libcurl's default.
    var file: String?
    /// `CURLOPT_CAPATH`, or nil for libcurl's default.
    var directory: String?
    /// `CURLOPT_CAINFO_BLOB`: PEM used instead of `file` when libcurl supports it; nil for none.
    var pem: Data?
    /// The explicit CA bundle (`TLSTrust.caBundle`), which a certificate that does not verify
    /// is then said not to be issued by; nil for the environment's and libcurl's CAs.
    var bundle: String?

    /// The locations for `trust` under `environment`.
    /// - Throws: `APIError.caCertificatesUnusable` naming the variable and the path when a
    ///   variable names something missing or unusable.
    /// - Parameter systemCAFile: libcurl's built-in CA file, whose certificates an explicit
    ///   bundle is added to (nil when libcurl names none).
    static func resolve(_ trust: TLSTrust, environment: [String: String], systemCAFile: String? = nil) throws(APIError) -> CALocations {
        if let bundle = trust.caBundle {
            // Added to the system's trust: the bundle and the system CA file as PEM text (the
            // bundle alone as the CA file for an old libcurl); the system directory stays.
            // The bundle as `TLSTrust` read it (not read again: a file replaced since then
            // waits for the next TLSTrust), then the system file as it is now.
            var pem = trust.pem
            if let system = systemCAFile, system != bundle.path, let text = FileManager.default.contents(atPath: system) {
                pem.append(contentsOf: Array("\n".utf8))
                pem.append(text)
            }
            return CALocations(file: bundle.path, directory: nil, pem: pem, bundle: bundle.path)
        }
        func value(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        if let file = value("CURL_CA_BUNDLE") {
            let checked = try checkedFile(file, variable: "CURL_CA_BUNDLE")
            return CALocations(file: checked.path, directory: nil, pem: checked.pem)
        }
        var locations = CALocations()
        if let file = value("SSL_CERT_FILE") {
            let checked = try checkedFile(file, variable: "SSL_CERT_FILE")
            locations.file = checked.path
            locations.pem = checked.pem
        }
        if let directories = value("SSL_CERT_DIR") {
            for directory in directories.split(separator: ":").map(String.init) {
                var isDirectory: ObjCBool = false
                guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
                    throw .caCertificatesUnusable("SSL_CERT_DIR names \(directory), which is not a directory; point it at a directory of CA certificates prepared with `openssl rehash`, or unset it")
                }
            }
            locations.directory = directories
        }
        return locations
    }

    /// `path` and its bytes, read once, when it is a readable PEM file with a certificate.
    private static func checkedFile(_ path: String, variable: String) throws(APIError) -> (path: String, pem: Data) {
        do {
            return (path, try TLSTrust(caBundle: URL(fileURLWithPath: path)).pem)
        } catch {
            throw .caCertificatesUnusable("\(variable) names \(path), which \(error.problem); point it at a PEM file of CA certificates, or unset it")
        }
    }
}
