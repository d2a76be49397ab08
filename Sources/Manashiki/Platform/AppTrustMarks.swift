import Foundation

/// Where an app keeps the high-water marks of signed metadata (TUF) for a model store: the
/// highest version of each model installed with trust, and the latest time trust was checked.
/// `TUFTrust` and `ModelSync.restore` use it unless given other marks, so both share one record
/// per store.
///
/// | platform | where | why |
/// |---|---|---|
/// | Linux | `<store>/.manashiki/trust/high-water.json` (`FileHighWaterMarks`) | the sync agent's file |
/// | Apple platforms | the same file, for now | the Keychain comes with issue 35's last stage |
public enum AppTrustMarks {
    /// The marks of the store at `store`.
    public static func forStore(_ store: URL) -> any TrustHighWaterMarks {
        FileHighWaterMarks(file: StoreLayout(directory: store).trustHighWaterFile)
    }
}
