#if os(macOS) || os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
import Foundation
import Security

/// High-water marks of signed metadata (TUF) in the Keychain (Apple platforms): one generic
/// password item (service `com.manashiki.trust.high-water`, account one per store) holding the
/// same document as `FileHighWaterMarks`' file. `AppTrustMarks.forStore(_:)` uses it in apps.
///
/// Why the Keychain: the item is not one of the app's files, so a restore of the app's files (an
/// older backup of its container, a reinstall) does not roll the marks back: a restored app
/// still refuses the older models and the expired metadata it refused before. The item is
/// `kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly` (readable in the background once the
/// device was unlocked after a restart; Apple: such items "do not migrate to a new device",
/// so a backup restored on another device starts with no marks, as a new install does) and
/// not synchronizable (`kSecAttrSynchronizable` false: never copied to the user's other
/// devices through iCloud), in the data protection keychain on macOS too
/// (`kSecUseDataProtectionKeychain`, which the other platforms ignore). What it does not
/// cover: a full restore of this same device from its own encrypted backup brings back the
/// Keychain as it was then.
///
/// Every API, from developer.apple.com/documentation/security, is older than the deployment
/// targets (macOS 13, iOS 16, tvOS 16, watchOS 9, visionOS 1), so no `#available`:
/// `SecItemCopyMatching(_:_:)`, `SecItemAdd(_:_:)`, `SecItemUpdate(_:_:)` iOS 2, macOS 10.6,
/// tvOS 9, watchOS 2, visionOS 1; `kSecClass`, `kSecClassGenericPassword`, `kSecAttrService`,
/// `kSecAttrAccount`, `kSecValueData`, `kSecReturnData`, `kSecMatchLimit`, `kSecMatchLimitOne`,
/// `errSecItemNotFound`, `errSecDuplicateItem` iOS 2, macOS 10.6 (10.0 for the codes), tvOS 9,
/// watchOS 2, visionOS 1; `kSecAttrAccessible` and
/// `kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly` iOS 4, macOS 10.9, tvOS 9, watchOS 2,
/// visionOS 1; `kSecAttrSynchronizable` iOS 7, macOS 10.9, tvOS 9, watchOS 2, visionOS 1;
/// `kSecAttrAccessGroup` iOS 3, macOS 10.9, tvOS 9, watchOS 2, visionOS 1;
/// `kSecUseDataProtectionKeychain` iOS 13, macOS 10.15, tvOS 13, watchOS 6, visionOS 1.
/// Type-checked on Linux against stand-ins written from that documentation
/// (`.ci/apple-typecheck.py`); not compiled or run on Apple platforms in this repository's CI
/// (docs/apple-platforms.md, "What is verified on Linux only").
public final class KeychainHighWaterMarks: TrustHighWaterMarks, @unchecked Sendable {
    /// The item's service: `com.manashiki.trust.high-water`.
    public static let service = "com.manashiki.trust.high-water"

    /// A Keychain call that failed: the operation and its `OSStatus` (`errSecMissingEntitlement`,
    /// -34018, for a program without a keychain entitlement; `errSecInteractionNotAllowed`,
    /// -25308, before the first unlock after a restart).
    public struct Failure: Error, Sendable, Hashable, LocalizedError {
        /// `SecItemCopyMatching`, `SecItemAdd` or `SecItemUpdate`.
        public var operation: String
        /// What it returned.
        public var status: Int32

        /// Which call failed, and what to check.
        public var errorDescription: String? {
            "the Keychain refused \(operation) (OSStatus \(status)) for the signed-metadata high-water marks: an app needs its application identifier (any signed app has one) and, for a shared access group, the keychain-access-groups entitlement; before the first unlock after a restart the item cannot be read"
        }
    }

    /// The item's account.
    public let account: String
    /// The access group (an app group shared with extensions), nil for the app's default.
    public let accessGroup: String?
    private let ledger: HighWaterLedger

    /// Marks in the item of `account` (`AppTrustMarks.keychainAccount(for:)` for a store).
    public init(account: String, accessGroup: String? = nil) {
        self.account = account
        self.accessGroup = accessGroup
        // The closures capture the (Sendable) strings and build the query each time.
        ledger = HighWaterLedger(load: { try Self.read(Self.query(account: account, accessGroup: accessGroup)) },
                                 save: { try Self.write($0, Self.query(account: account, accessGroup: accessGroup)) })
    }

    public func highest(_ modelId: String) -> String? { ledger.highest(modelId) }

    public func record(_ version: String, for modelId: String) throws { try ledger.record(version, for: modelId) }

    public func latestCheck() -> Date? { ledger.latestCheck() }

    public func recordCheck(_ date: Date) throws { try ledger.recordCheck(date) }

    /// What identifies the item (and the keychain it is in).
    private static func query(account: String, accessGroup: String?) -> [CFString: Any] {
        var query: [CFString: Any] = [kSecClass: kSecClassGenericPassword, kSecAttrService: service, kSecAttrAccount: account,
                                      kSecAttrSynchronizable: false, kSecUseDataProtectionKeychain: true]
        if let accessGroup { query[kSecAttrAccessGroup] = accessGroup }
        return query
    }

    /// The item's data; nil when there is no item.
    private static func read(_ item: [CFString: Any]) throws -> Data? {
        var query = item
        query[kSecReturnData] = true
        query[kSecMatchLimit] = kSecMatchLimitOne
        var result: CFTypeRef?
        let status = SecItemCopyMatching(query as CFDictionary, &result)
        if status == errSecItemNotFound { return nil }
        guard status == errSecSuccess else { throw Failure(operation: "SecItemCopyMatching", status: status) }
        return result as? Data
    }

    /// Replaces the item's data, adding the item (this device only, after the first unlock)
    /// when there is none.
    private static func write(_ data: Data, _ item: [CFString: Any]) throws {
        let change: [CFString: Any] = [kSecValueData: data]
        var status = SecItemUpdate(item as CFDictionary, change as CFDictionary)
        if status == errSecItemNotFound {
            var add = item
            add[kSecValueData] = data
            add[kSecAttrAccessible] = kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly
            status = SecItemAdd(add as CFDictionary, nil)
            // Another process added it meanwhile: change that one.
            if status == errSecDuplicateItem { status = SecItemUpdate(item as CFDictionary, change as CFDictionary) }
            guard status == errSecSuccess else { throw Failure(operation: "SecItemAdd", status: status) }
            return
        }
        guard status == errSecSuccess else { throw Failure(operation: "SecItemUpdate", status: status) }
    }
}
#endif
