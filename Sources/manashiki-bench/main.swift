import Foundation
import Manashiki

// Temporary: download one model through the SDK and print wall time and peak RSS.
let args = CommandLine.arguments
let base = URL(string: args[1])!
let store = URL(fileURLWithPath: args[2])
let id = args[3]
let client = try ManashikiClient(apiKey: "mk_pub_bench_AbCdEfGhIjKlMnOpQrSt01", baseURL: base, storageDirectory: store)
let start = Date()
let model = try await client.downloadModel(id)
let elapsed = Date().timeIntervalSince(start)
print(String(format: "%.3f s  %@", elapsed, model.sha256))
