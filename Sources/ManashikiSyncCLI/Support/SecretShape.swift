import Foundation

/// Recognises text that looks like a Manashiki API key, so that a key typed in the wrong place
/// is never echoed back in an error message.
enum SecretShape {
    /// Whether `text` looks like an API key (or starts like one).
    static func looksLikeKey(_ text: String) -> Bool {
        ["mk_pub_", "mk_live_", "mk_svc_", "sk_live_", "mks_"].contains { text.contains($0) }
    }

    /// `text`, or a placeholder when it looks like a key.
    static func echo(_ text: String) -> String {
        looksLikeKey(text) ? "(a value that looks like an API key, not shown)" : "\"\(text)\""
    }
}
