import Foundation
import Manashiki

/// A registry client that can also fetch a blob from a mirror through the SDK's verified
/// streaming path (`ManashikiClient` conforms). Mirror transfers are kept short: a mirror that
/// is down, slow to answer or missing the blob falls through to the next source quickly.
package protocol MirrorDownloading: Sendable {
    /// Downloads `url` as `<store>/<modelId>.bin`, verified against `expecting`, within the
    /// run's deadline and bandwidth limit (`run.deadline`, `run.rateLimiter`).
    func downloadFromMirror(_ modelId: String, url: URL, allowPlainHTTP: Bool, expecting: ExpectedArtifact, run: DownloadOptions,
                            idleTimeout: TimeInterval, progress: (@Sendable (Int64, Int64?) -> Void)?) async throws -> DownloadedModel
}

extension ManashikiClient: MirrorDownloading {
    /// The transfer settings for mirrors: a stall (`Reconciler.Options.mirrorIdleTimeout`,
    /// default 15 s) or more than one resumption moves on to the next source (the registry is
    /// still there).
    static var mirrorOptions: DownloadOptions {
        var options = DownloadOptions()
        options.idleTimeout = 15
        options.maxResumes = 1
        options.maxURLRefreshes = 0
        options.resumeBackoff = 0.1
        return options
    }

    package func downloadFromMirror(_ modelId: String, url: URL, allowPlainHTTP: Bool, expecting: ExpectedArtifact, run: DownloadOptions,
                                    idleTimeout: TimeInterval, progress: (@Sendable (Int64, Int64?) -> Void)?) async throws -> DownloadedModel {
        var options = Self.mirrorOptions
        options.idleTimeout = idleTimeout
        options.deadline = run.deadline
        options.rateLimiter = run.rateLimiter // one limit for the whole run, mirrors included
        return try await downloadModel(modelId, fromMirror: url, allowPlainHTTP: allowPlainHTTP, expecting: expecting, options: options, progress: progress)
    }
}
