import Foundation
import Manashiki

/// What a run knows of a source's `index.json` before it plans: read once per run, so a
/// mirror is asked only for blobs it says it holds, and a source that cannot serve anything
/// is named in a warning instead of silently costing a request (or an idle timeout) per model.
///
/// | the mirror's `index.json` | what happens |
/// |---|---|
/// | a bundle index this version reads | blobs it lists are requested; others are not (the model comes from the next source, the plan says so) |
/// | 404, another status, not a bundle index, a newer format, over 64 MiB, a refused redirect | a warning saying what to do; blobs are requested without the index, as before |
/// | no answer (connection refused, TLS, a proxy refusal, no byte for the idle timeout) | the mirror is not used this run: one warning, no further request |
///
/// A bundle directory that does not exist, or whose index cannot be read, gets a warning on an
/// online run (its blobs are still used where present; the offline plan reads bundle indexes
/// itself); a mirror on an `--offline` run gets a warning that it is not used.
enum SourceIndex: Sendable {
    /// The digests the mirror's index lists, and its entries that carry a publisher signature
    /// (by artifact digest).
    case listed(Set<String>, signed: [String: [PinnedArtifact]])
    /// No usable index: blobs are requested directly.
    case unlisted
    /// The mirror did not answer: not used this run.
    case unreachable(any Error)
}

extension ArtifactFetcher {
    /// The most bytes of a mirror's `index.json` read (about 150,000 entries).
    static let indexLimit = BundleIndex.maxBytes

    /// Reads each mirror's `index.json` (and checks each bundle directory) once, before the
    /// plan; returns the warnings to report.
    mutating func readIndexes() async -> [String] {
        var warnings: [String] = []
        for source in sources {
            if let oci = source.oci {
                warnings += await oci.prepare(offline: offline)
                continue
            }
            if let bundle = source.bundle {
                guard !offline else { continue }
                if POSIX.lstatInfo(bundle.directory.path) == nil {
                    warnings.append("\(source.label) does not exist, so it serves nothing this run — check the path (a disk that is not mounted?)")
                } else {
                    do { _ = try BundleIndex.read(bundle) } catch {
                        warnings.append("\(source.label): \(error); its blobs are still used where present")
                    }
                }
                continue
            }
            if let bucket = source.s3 {
                warnings += await bucket.prepare(offline: offline)
                continue
            }
            guard case .mirror(let base) = source.source.kind else { continue }
            if offline {
                warnings.append("\(source.label) is not used: \(Remedy.offline) makes no network request")
                continue
            }
            guard let mirrorClient, indexes[source.label] == nil else { continue }
            let url = ArtifactSource.indexURL(base)
            do {
                let (status, body) = try await mirrorClient.fetchDocument(url, allowPlainHTTP: source.source.allowsPlainHTTP,
                                                                            idleTimeout: mirrorIdleTimeout, maxBytes: Self.indexLimit)
                switch status {
                case 200:
                    do {
                        let index = try BundleIndex.decode(body, location: url.absoluteString)
                        let signed = Dictionary(grouping: index.models.filter { $0.signature != nil }, by: \.sha256)
                        indexes[source.label] = .listed(Set(index.models.map(\.sha256)), signed: signed)
                    } catch {
                        indexes[source.label] = .unlisted
                        warnings.append("\(source.label): \(error); until then its blobs are requested without the index")
                    }
                case 404:
                    indexes[source.label] = .unlisted
                    warnings.append("\(source.label) has no \(BundleLayout.indexName) (HTTP 404) — serve the whole directory \(Remedy.export(to: nil)) writes (index.json and blobs/); its blobs are requested without the index")
                default:
                    indexes[source.label] = .unlisted
                    warnings.append("\(source.label) answered HTTP \(status) for \(BundleLayout.indexName); its blobs are requested without the index — check the server's configuration")
                }
            } catch is CancellationError {
                break
            } catch where !Self.isUnreachable(error) {
                // The mirror answered, but not with an index this run can use (over the size
                // limit, a refused redirect): its blobs may still be fine.
                indexes[source.label] = .unlisted
                warnings.append("\(source.label): its \(BundleLayout.indexName) could not be read (\(SyncFailure(error).message)); its blobs are requested without the index")
            } catch {
                indexes[source.label] = .unreachable(error)
                // A certificate or proxy problem is reported with each model it keeps from the
                // mirror (as a blob failure would be); anything else once, here.
                if !Self.isConfigurationProblem(error) {
                    warnings.append("\(source.label) did not answer (\(SyncFailure(error).message)); it is not used this run — what it would serve comes from the next source")
                }
            }
        }
        return warnings
    }

    /// Whether an error means the mirror cannot be reached at all (the network, TLS, a proxy),
    /// rather than that one answer was unusable.
    static func isUnreachable(_ error: any Error) -> Bool {
        switch error as? APIError {
        case .transport?, .untrustedCertificate?, .certificateDateInvalid?, .certificateNameMismatch?, .caCertificatesUnusable?, .proxy?: return true
        case nil: return !(error is SyncFailure)
        default: return false
        }
    }

    /// Whether a source's failure is a setting someone must fix (a certificate that does not
    /// verify, a proxy that wants credentials or refuses), reported with each model.
    static func isConfigurationProblem(_ error: any Error) -> Bool {
        switch error as? APIError {
        case .untrustedCertificate?, .certificateDateInvalid?, .certificateNameMismatch?: return true
        case .proxy(let failure)? where !failure.isRetryable: return true
        default: return false
        }
    }
}
