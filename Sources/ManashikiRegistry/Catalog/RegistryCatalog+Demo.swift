import Foundation

extension RegistryCatalog {
    /// The demo catalog, built in: the same as `examples/registry/catalog.json` (a test keeps the
    /// two equal), so a package that depends on this one serves it without a path:
    /// `swift run manashiki-registry serve` (API on 127.0.0.1:8080, storage on :8081), or
    /// `DevelopmentRegistry.start(catalog: .demo)` in a test. Its keys end in
    /// `0123456789abcdefghij` (`mk_pub_demo_…`, `mk_live_demo_…`, `mk_svc_demo_…`, `sk_live_…`);
    /// its models are `whisper-tiny-en`, `distil-small-en`, the private `whisper-medical-ja-fp16`,
    /// `legacy-asr-v1` (sunset) and `kws-hey-manashiki`; every artifact is generated.
    public static var demo: RegistryCatalog {
        do {
            return try CatalogFileParser.parse(JSONSerialization.jsonObject(with: Data(demoText.utf8)),
                                               file: URL(fileURLWithPath: demoName))
        } catch {
            preconditionFailure("the built-in demo catalog does not load: \(error)")
        }
    }

    /// How messages name the built-in catalog.
    static let demoName = "the built-in demo catalog"

    /// The text of `examples/registry/catalog.json`.
    static let demoText = #"""
{
  "$comment": "Demo catalog for manashiki-registry. Records use the wire format of CONTRACT.md §3; size and sha256 are computed from each artifact. See README.md in this directory.",
  "keys": [
    {"secret": "mk_pub_demo_0123456789abcdefghij"},
    {"secret": "mk_live_demo_0123456789abcdefghij"},
    {"secret": "mk_svc_demo_0123456789abcdefghij"},
    {"secret": "sk_live_0123456789abcdefghij", "organization": "demo"}
  ],
  "models": [
    {
      "modelId": "whisper-tiny-en",
      "version": "1.0.0",
      "artifact": {"generated": {"size": 4194304, "seed": 1}},
      "card": {"title": "Whisper tiny, English", "summary": "Small English speech recognition model.", "license": "mit", "tags": ["asr", "en"]},
      "lineage": {"baseModelId": "whisper-tiny", "parentVersion": null},
      "format": {"type": "ggml", "precision": "q8_0"},
      "compatibility": {"platforms": ["ios", "ipados", "macos", "linux", "android"], "min_os": "16.0", "min_ram_mb": 512, "min_disk_mb": 8},
      "lifecycle": {"status": "production", "sunsetAt": null},
      "visibility": "public",
      "metrics": {"wer": 0.121, "rtf": 0.05}
    },
    {
      "modelId": "whisper-medical-ja-fp16",
      "version": "1.4.0",
      "artifact": {"generated": {"size": 2097152, "seed": 2}},
      "organization": "demo",
      "card": {"title": "Whisper medium, Japanese medical", "summary": "Private model: downloads need a session token.", "license": "apache-2.0", "tags": ["asr", "ja"]},
      "lineage": {"baseModelId": "whisper-medium", "parentVersion": "1.3.2"},
      "format": {"type": "ggml", "precision": "fp16"},
      "compatibility": {"platforms": ["ios", "macos"], "min_os": "17.0", "min_ram_mb": 4096, "min_disk_mb": 1600},
      "lifecycle": {"status": "production", "sunsetAt": null},
      "visibility": "private",
      "metrics": {"wer": 0.081, "rtf": 0.12}
    },
    {
      "modelId": "distil-small-en",
      "version": "0.9.2",
      "artifact": {"generated": {"size": 1048576, "seed": 3}},
      "card": {"title": "Distil small, English", "summary": "Deprecated: use whisper-tiny-en.", "license": "mit", "tags": ["asr", "en"]},
      "format": {"type": "onnx", "precision": "int8"},
      "compatibility": {"platforms": ["android", "linux", "windows"]},
      "lifecycle": {"status": "deprecated", "sunsetAt": "2027-06-30T00:00:00Z"},
      "visibility": "public"
    },
    {
      "modelId": "legacy-asr-v1",
      "version": "1.0.0",
      "artifact": {"generated": {"size": 262144, "seed": 4}},
      "card": {"title": "Legacy ASR v1", "summary": "Sunset: downloads answer 410 model_sunset."},
      "compatibility": {"platforms": ["ios"], "min_os": "14.2.1"},
      "lifecycle": {"status": "sunset", "sunsetAt": "2026-01-01T00:00:00Z"},
      "visibility": "public"
    },
    {
      "modelId": "kws-hey-manashiki",
      "version": "2.1.0",
      "artifact": {"generated": {"size": 65536, "seed": 5}},
      "card": {"title": "Keyword spotter", "summary": "Wake word detector for watches and TVs.", "tags": ["kws"]},
      "format": {"type": "coreml"},
      "compatibility": {"platforms": ["watchos", "tvos", "visionos"], "min_os": "10.0"},
      "lifecycle": {"status": "staging", "sunsetAt": null},
      "visibility": "public"
    }
  ],
  "pending": [
    {"modelId": "whisper-tiny-en", "version": "1.1.0", "artifact": {"generated": {"size": 4194304, "seed": 11}}}
  ],
  "faults": []
}
"""#
}
