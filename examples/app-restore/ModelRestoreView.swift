// An app that restores its models at launch (after a reinstall, a new device, or a backup
// restore that skipped them) and shows the progress in SwiftUI.
//
// Not part of the package build: copy it into an app target that depends on the
// `ManashikiSync` product, and bundle a manifest such as examples/manifests/app-restore.json
// as `models.json`. The app ships only its publishable mk_pub_ key.
import SwiftUI
import ManashikiSync

@MainActor
final class ModelRestorer: ObservableObject {
    enum Phase: Equatable {
        case idle, checking, downloading, ready, failed(String)
    }

    @Published var phase: Phase = .idle
    @Published var bytesDone: Int64 = 0
    @Published var bytesTotal: Int64 = 0
    @Published var currentModel: String?

    private var perModel: [String: Int64] = [:]
    private var finishedBytes: Int64 = 0

    /// Reconciles the app's model store with the bundled manifest. Intact models are kept, so
    /// this is cheap on every launch; only missing or damaged ones are downloaded.
    func restore() async {
        guard phase != .checking, phase != .downloading,
              let manifest = Bundle.main.url(forResource: "models", withExtension: "json") else { return }
        phase = .checking
        let report: SyncReport
        do {
            report = try await ModelSync.restore(manifestURL: manifest, apiKey: "mk_pub_acme_REPLACEWITHYOURPUBLISHABLEKEY") { event in
                Task { @MainActor in self.apply(event) }
            }
        } catch {
            phase = .failed(error.localizedDescription)   // an invalid manifest or key
            return
        }
        switch report.outcome {
        case .inSync, .changed: phase = .ready
        case .partialFailure where report.isRetryable: phase = .failed("Some models could not be downloaded. They will be retried.")
        default: phase = .failed(report.failures.first?.description ?? report.summary)
        }
    }

    private func apply(_ event: SyncEvent) {
        switch event {
        case .planReady(let plan):
            bytesTotal = plan.bytesToFetch
            if plan.bytesToFetch > 0 { phase = .downloading }
        case .modelStarted(let id, _):
            currentModel = id
        case .progress(let id, let written, _):
            perModel[id] = written
            bytesDone = finishedBytes + perModel.values.reduce(0, +)
        case .modelFinished(let result):
            if let written = perModel.removeValue(forKey: result.modelId) { finishedBytes += written }
            bytesDone = finishedBytes + perModel.values.reduce(0, +)
        default:
            break
        }
    }
}

struct ModelRestoreView: View {
    @StateObject private var restorer = ModelRestorer()

    var body: some View {
        VStack(spacing: 16) {
            switch restorer.phase {
            case .idle, .checking:
                ProgressView("Checking models…")
            case .downloading:
                ProgressView(value: Double(restorer.bytesDone), total: Double(max(restorer.bytesTotal, 1))) {
                    Text("Downloading \(restorer.currentModel ?? "models")…")
                } currentValueLabel: {
                    Text("\(ByteCountFormatter.string(fromByteCount: restorer.bytesDone, countStyle: .file)) of \(ByteCountFormatter.string(fromByteCount: restorer.bytesTotal, countStyle: .file))")
                }
            case .ready:
                Label("Models ready", systemImage: "checkmark.circle")
            case .failed(let message):
                Text(message).multilineTextAlignment(.center)
                Button("Try again") { Task { await restorer.restore() } }
            }
        }
        .padding()
        .task { await restorer.restore() }   // at launch; also call it when the app becomes active
    }
}
