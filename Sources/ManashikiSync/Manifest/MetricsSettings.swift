import Foundation

/// Where a run's metrics go: `"metrics": {"file": "/var/lib/prometheus/node-exporter/manashiki.prom"}`.
///
/// The file is in Prometheus' text format, for node_exporter's textfile collector, and is
/// replaced atomically after every `manashiki-sync sync` run (the CLI writes it; the
/// `--metrics-file` option overrides this setting).
public struct MetricsSettings: Sendable, Hashable {
    /// The metrics file as written (absolute, `~/…` or relative to the manifest); nil for none.
    public var file: String?

    /// Creates settings.
    public init(file: String? = nil) { self.file = file }
}
