import Foundation

/// Where an app keeps the high-water marks of signed metadata (TUF) for a model store: the
/// highest version of each model installed with trust, and the latest time trust was checked.
/// `TUFTrust` and `ModelSync.restore` use it unless given other marks, so both share one record
/// per store.
///
/// | process | where | why |
/// |---|---|---|
/// | an app or app extension on an Apple platform | the Keychain (`KeychainHighWaterMarks`, account `keychainAccount(for:)`) | not one of the app's files: a restore of them (an older backup of the container, a reinstall) cannot roll the marks back |
/// | anything else (Linux, a command-line tool or test on macOS) | `<store>/.manashiki/trust/high-water.json` (`FileHighWaterMarks`) | the sync agent's file; a program outside an app bundle has no keychain entitlement for the data protection keychain |
public enum AppTrustMarks {
    /// The marks of the store at `store`, for this process.
    public static func forStore(_ store: URL) -> any TrustHighWaterMarks {
        #if os(macOS) || os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
        if AppBundle.isApp { return KeychainHighWaterMarks(account: keychainAccount(for: store)) }
        #endif
        return FileHighWaterMarks(file: StoreLayout(directory: store).trustHighWaterFile)
    }

    /// The Keychain account of `store`'s marks: `store:` and its path relative to the home
    /// directory (`~/Library/Application Support/ManashikiModels`), or its absolute path outside
    /// it. Relative because an iOS app's container path changes when the app is reinstalled or
    /// restored; the Keychain item must still be found then.
    public static func keychainAccount(for store: URL, home: String = NSHomeDirectory()) -> String {
        let path = store.standardizedFileURL.path
        let base = URL(fileURLWithPath: home).standardizedFileURL.path
        let prefix = base.hasSuffix("/") ? base : base + "/"
        return "store:" + (path.hasPrefix(prefix) ? "~/" + path.dropFirst(prefix.count) : path)
    }
}
