import Foundation
import Testing
@testable import Manashiki

/// Literal JSON from CONTRACT.md §3, decoded with the SDK's types.
@Suite("Wire format decoding (CONTRACT §3)")
struct WireDecodingTests {
    static let fullRecord = #"""
    {
      "modelId": "whisper-medical-ja-fp16",
      "version": "1.4.0",
      "size": 1533018112,
      "sha256": "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
      "card": {"title": "Whisper medium, Japanese medical", "summary": "…", "license": "apache-2.0", "tags": ["asr", "ja"]},
      "lineage": {"baseModelId": "whisper-medium", "parentVersion": "1.3.2"},
      "format": {"type": "ggml", "precision": "fp16"},
      "compatibility": {"platforms": ["ios", "macos"], "min_os": "17.0", "min_ram_mb": 4096, "min_disk_mb": 1600},
      "lifecycle": {"status": "production", "sunsetAt": null},
      "visibility": "public",
      "metrics": {"wer": 0.081, "rtf": 0.12}
    }
    """#

    @Test("the catalog decodes")
    func catalog() throws {
        let json = #"""
        {"models": [
          {"modelId": "whisper-medical-ja-fp16", "version": "1.4.0", "size": 1533018112,
           "sha256": "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"}
        ]}
        """#
        let catalog = try JSONDecoder().decode(ModelCatalogResponse.self, from: Data(json.utf8))
        #expect(catalog.models.map(\.entry) == [ModelEntry(modelId: "whisper-medical-ja-fp16", version: "1.4.0", size: 1_533_018_112,
                                              sha256: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08")])
    }

    @Test("an entry of wrong types is kept apart with its model id and the field at fault; the others decode")
    func catalogBadElement() throws {
        let json = #"{"models": [{"modelId": "a", "version": "1.0.0", "size": "12", "sha256": "x"}, {"modelId": "b", "version": "1", "size": 2, "sha256": "y"}, {"modelId": "c", "version": "1", "size": 1.5, "sha256": "y"}]}"#
        let catalog = try JSONDecoder().decode(ModelCatalogResponse.self, from: Data(json.utf8))
        #expect(catalog.models[0].entry == nil)
        #expect(catalog.models[0].modelId == "a")
        #expect(catalog.models[0].problem == "is not a valid entry: size is not an integer")
        #expect(catalog.models[1].entry?.modelId == "b")
        #expect(catalog.models[2].entry == nil)
        #expect(catalog.models[2].problem?.contains("a number does not fit its field") == true)
    }

    @Test("the full record decodes every field")
    func fullRecord() throws {
        let r = try JSONDecoder().decode(ModelRecord.self, from: Data(Self.fullRecord.utf8))
        #expect(r.modelId == "whisper-medical-ja-fp16")
        #expect(r.version == "1.4.0")
        #expect(r.size == 1_533_018_112)
        #expect(r.card == ModelCard(title: "Whisper medium, Japanese medical", summary: "…", license: "apache-2.0", tags: ["asr", "ja"]))
        #expect(r.lineage == ModelLineage(baseModelId: "whisper-medium", parentVersion: "1.3.2"))
        #expect(r.format == ModelFormat(type: "ggml", precision: "fp16"))
        #expect(r.compatibility == ModelCompatibility(platforms: [.ios, .macos], minOs: "17.0", minRamMb: 4096, minDiskMb: 1600))
        #expect(r.lifecycle == ModelLifecycle(status: .production, sunsetAt: nil))
        #expect(r.visibility == .public)
        #expect(r.metrics == ["wer": 0.081, "rtf": 0.12])
    }

    @Test("absent and null optionals decode as nil")
    func absentOptionals() throws {
        let json = #"""
        {"modelId": "m", "version": "1.0.0", "size": 1, "sha256": "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
         "card": null, "compatibility": {"platforms": ["linux"], "min_os": null},
         "lifecycle": {"status": "staging"}, "visibility": "private"}
        """#
        let r = try JSONDecoder().decode(ModelRecord.self, from: Data(json.utf8))
        #expect(r.card == nil && r.lineage == nil && r.format == nil && r.metrics == nil)
        #expect(r.compatibility == ModelCompatibility(platforms: [.linux]))
        #expect(r.lifecycle.sunsetAt == nil)
        #expect(r.visibility == .private)
    }

    @Test("an unknown lifecycle status, platform and visibility decode instead of failing")
    func unknownValues() throws {
        let json = Self.fullRecord
            .replacingOccurrences(of: #""status": "production""#, with: #""status": "quarantined""#)
            .replacingOccurrences(of: #"["ios", "macos"]"#, with: #"["ios", "fuchsia"]"#)
            .replacingOccurrences(of: #""visibility": "public""#, with: #""visibility": "partners""#)
        let r = try JSONDecoder().decode(ModelRecord.self, from: Data(json.utf8))
        #expect(r.lifecycle.status == .unknown("quarantined"))
        #expect("\(r.lifecycle.status)" == "quarantined")
        #expect(r.compatibility.platforms == [.ios, Platform(rawValue: "fuchsia")])
        #expect(r.visibility == .unknown("partners"))
    }

    @Test("unknown extra fields anywhere are ignored, and non-numeric metrics are dropped")
    func extraFields() throws {
        let json = Self.fullRecord
            .replacingOccurrences(of: #""visibility": "public","#, with: #""visibility": "public", "owner": {"team": "asr"}, "x": [1,2],"#)
            .replacingOccurrences(of: #""rtf": 0.12"#, with: #""rtf": 0.12, "notes": "fast", "hw": {"a": 1}"#)
            .replacingOccurrences(of: #""license": "apache-2.0","#, with: #""license": "apache-2.0", "homepage": "https://x","#)
        let r = try JSONDecoder().decode(ModelRecord.self, from: Data(json.utf8))
        #expect(r.metrics == ["wer": 0.081, "rtf": 0.12])
        #expect(r.card?.license == "apache-2.0")
    }

    @Test("sunsetAt parses ISO 8601 dates")
    func sunsetAt() throws {
        let json = Self.fullRecord.replacingOccurrences(of: #""sunsetAt": null"#, with: #""sunsetAt": "2026-12-31T00:00:00Z""#)
        let r = try JSONDecoder().decode(ModelRecord.self, from: Data(json.utf8))
        #expect(r.lifecycle.sunsetAt == Date(timeIntervalSince1970: 1_798_675_200))
    }

    @Test("the download ticket decodes with and without optional fields")
    func downloadTicket() throws {
        let full = #"{"downloadUrl": "https://cdn.example/blobs/9f86?exp=1764400000&sig=abc", "sha256": "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08", "size": 1533018112, "expiresIn": 300, "version": "1.4.0"}"#
        let t = try JSONDecoder().decode(DownloadTicket.self, from: Data(full.utf8))
        #expect(t.size == 1_533_018_112 && t.expiresIn == 300 && t.version == "1.4.0" && t.sha256?.count == 64)
        let bare = #"{"downloadUrl": "https://cdn.example/b", "sha256": null, "size": null}"#
        let b = try JSONDecoder().decode(DownloadTicket.self, from: Data(bare.utf8))
        #expect(b.sha256 == nil && b.size == nil && b.version == nil && b.expiresIn == nil)
    }

    @Test("session and upload answers decode")
    func sessionAndUpload() throws {
        let s = try JSONDecoder().decode(ModelSession.self, from: Data(#"{"token": "mks_abc", "principalId": "doctor-abc123", "expiresAt": "2026-11-29T16:00:00Z"}"#.utf8))
        #expect(s.token == "mks_abc" && s.principalId == "doctor-abc123")
        #expect(s.expiresAt == ISO8601DateFormatter().date(from: "2026-11-29T16:00:00Z"))
        #expect(!s.description.contains("mks_abc"))
        var dumped = ""
        dump(s, to: &dumped)
        #expect(!dumped.contains("mks_abc"))
        let u = try JSONDecoder().decode(ModelUpload.self, from: Data(#"{"uploadId": "up_1", "uploadUrl": "https://up.example/x?sig=s", "method": "PUT", "expiresIn": 900}"#.utf8))
        #expect(u.uploadId == "up_1" && u.method == "PUT" && u.expiresIn == 900)
        #expect(!u.description.contains("sig=s"))
    }

    @Test("the upload request encodes the contract's field names")
    func uploadRequestEncoding() throws {
        let req = ModelUploadRequest(modelId: "m", version: "2.0.0", size: 123, sha256: String(repeating: "a", count: 64), visibility: .private, format: ModelFormat(type: "gguf"))
        let obj = try JSONSerialization.jsonObject(with: JSONEncoder().encode(req)) as! [String: Any]
        #expect(Set(obj.keys) == ["modelId", "version", "size", "sha256", "visibility", "format"])
        #expect(obj["visibility"] as? String == "private")
        #expect((obj["format"] as? [String: Any])?["type"] as? String == "gguf")
    }
}
