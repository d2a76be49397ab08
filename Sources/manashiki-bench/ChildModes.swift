#if os(Linux)
import Foundation
import Manashiki
import ManashikiSync
import ManashikiCore

/// Work the bench runs in child processes, so its time and memory are measured alone.
enum ChildModes {
    static func run(_ mode: String, _ args: [String]) async throws {
        switch mode {
        case "_download": try await download(args)
        case "_hash": try hash(args)
        case "_sync": try await sync(args)
        case "_verify": try await verify(args)
        case "_agent": await HerdBench.agent(args)
        case "_network": try network(args)
        default: throw BenchError("unknown mode \(mode)")
        }
    }

    /// `_download API KEY STORE ID [FROM TO]`: downloads through the SDK as the guide shows
    /// (the default transport, a progress closure); storage URLs starting with FROM are sent to
    /// TO (nginx, which every peer downloads from). Prints the digest and the RSS growth over
    /// the idle process.
    static func download(_ args: [String]) async throws {
        // The client's default (`DefaultTransport()`: libcurl on Linux), wrapped only to send
        // storage requests to nginx. (`URLSessionTransport()` here measured FoundationNetworking,
        // which a Linux user gets only by asking for it: 2.5× the CPU of `DefaultTransport`.)
        var transport: any HTTPTransport = DefaultTransport()
        if args.count >= 6 { transport = RewritingTransport(base: transport, from: args[4], to: args[5]) }
        let client = try ManashikiClient(apiKey: args[1], baseURL: URL(string: args[0])!, transport: transport,
                                         storageDirectory: URL(fileURLWithPath: args[2]))
        let idle = currentRSSKiB()
        let reports = Locked(0)
        let model = try await client.downloadModel(args[3]) { written, total in
            if total != nil { reports.withLock { $0 += 1 } }
        }
        let peak = peakRSSKiB()
        print("sha=\(model.sha256) progress=\(reports.withLock { $0 }) idleKiB=\(idle) maxKiB=\(peak) growthKiB=\(max(0, peak - idle))")
    }

    /// `_network LINK OPTIONS…`: one link of the `network` suite, measured here (inside the
    /// namespace the parent made for the capped and per-connection links); its tables go to stdout.
    static func network(_ args: [String]) throws {
        guard let name = args.first, let link = NetworkBench.Link(rawValue: name) else { throw BenchError("_network needs a link: throttled, capped, perConnection or loopback") }
        let context = try BenchContext.child(Array(args.dropFirst()))
        defer { context.tearDown() }
        try NetworkBench(context: context).measure(link)
        let loads = context.loads
        print(String(format: "\nLoad average (1 min) at the start of the \(link.rawValue) rounds: median %.2f, min %.2f, max %.2f.", median(loads), loads.min() ?? 0, loads.max() ?? 0))
    }

    /// `_hash FILE`: SHA-256 of a file in 4 MiB reads (`FileDigest`, as the agent hashes).
    static func hash(_ args: [String]) throws {
        do { print(try FileDigest.sha256(ofFileAt: args[0]).sha256) } catch { throw BenchError("cannot read \(args[0]) (errno \(error.code))") }
    }

    /// `_sync MANIFEST [FROM TO]`: one reconciler run (key from MANASHIKI_API_KEY); storage
    /// URLs starting with FROM are sent to TO. Prints the outcome, bytes and RSS growth.
    static func sync(_ args: [String]) async throws {
        let manifest = try Manifest.load(contentsOf: URL(fileURLWithPath: args[0]))
        var transport: any HTTPTransport = DefaultTransport()
        if args.count >= 3 { transport = RewritingTransport(base: transport, from: args[1], to: args[2]) }
        let idle = currentRSSKiB()
        let report = await (try Reconciler(manifest: manifest, transport: transport)).run()
        print("outcome=\(report.outcome.rawValue) downloaded=\(report.bytesDownloaded) hashed=\(report.bytesHashed) growthKiB=\(max(0, peakRSSKiB() - idle))")
        if !report.failures.isEmpty {
            var text = report.summary + "\n"
            for result in report.results where result.failure != nil { text += "  \(result)\n" }
            if let run = report.runFailure { text += "  run: \(run)\n" }
            FileHandle.standardError.write(Data(text.utf8))
        }
    }

    /// `_verify STORE`: re-hashes every installed file offline.
    static func verify(_ args: [String]) async throws {
        let report = await Verifier.verify(StoreLayout(directory: URL(fileURLWithPath: args[0])))
        print("healthy=\(report.isHealthy) hashed=\(report.bytesHashed) files=\(report.files.count)")
    }
}
#endif
