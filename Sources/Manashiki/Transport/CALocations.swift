import Foundation

/// Where libcurl (`CurlTransport`) finds the CAs to verify servers with: its `CURLOPT_CAINFO`
/// file and `CURLOPT_CAPATH` directory; nil keeps libcurl's built-in default for that slot
/// (on Debian `/etc/ssl/certs/ca-certificates.crt` and `/etc/ssl/certs`).
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
struct CALocations: Sendable, Equatable {
    /// `CURLOPT_CAINFO`, or nil for libcurl's default.
    var file: String?
    /// `CURLOPT_CAPATH`, or nil for libcurl's default.
    var directory: String?

    /// The locations for `trust` under `environment`.
    /// - Throws: `APIError.caCertificatesUnusable` naming the variable and the path when a
    ///   variable names something missing or unusable.
    static func resolve(_ trust: TLSTrust, environment: [String: String]) throws(APIError) -> CALocations {
        if let bundle = trust.caBundle {
            // Added to the system's trust: the bundle is the CA file, the system directory stays.
            return CALocations(file: bundle.path, directory: nil)
        }
        func value(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        if let file = value("CURL_CA_BUNDLE") {
            return CALocations(file: try checkedFile(file, variable: "CURL_CA_BUNDLE"), directory: nil)
        }
        var locations = CALocations()
        if let file = value("SSL_CERT_FILE") { locations.file = try checkedFile(file, variable: "SSL_CERT_FILE") }
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

    /// `path` when it is a readable PEM file with a certificate.
    private static func checkedFile(_ path: String, variable: String) throws(APIError) -> String {
        do {
            _ = try TLSTrust(caBundle: URL(fileURLWithPath: path))
        } catch {
            throw .caCertificatesUnusable("\(variable) names \(path), which \(error.problem); point it at a PEM file of CA certificates, or unset it")
        }
        return path
    }
}
