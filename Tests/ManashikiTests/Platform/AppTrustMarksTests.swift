import Foundation
import Manashiki
import ManashikiTestSupport
import Testing

/// Where an app's signed-metadata high-water marks live: the store's file outside an app bundle
/// (Linux, tools, tests), and the Keychain account an app's store maps to.
@Suite("App trust marks")
struct AppTrustMarksTests {
    @Test("outside an app bundle the marks are the store's file, the sync agent's, shared by every instance")
    func fileOutsideApps() throws {
        let scratch = ScratchDirectory("app-marks")
        let marks = AppTrustMarks.forStore(scratch.url)
        #expect(marks is FileHighWaterMarks)
        try marks.record("1.2.0", for: "tiny")
        #expect(FileHighWaterMarks(file: StoreLayout(directory: scratch.url).trustHighWaterFile).highest("tiny") == "1.2.0")
        #expect(AppTrustMarks.forStore(scratch.url).highest("tiny") == "1.2.0")
    }

    @Test("the Keychain account is the store's path relative to the home directory (an iOS container moves on reinstall), else absolute",
          arguments: [
            ("/var/mobile/Containers/Data/Application/AAAA/Library/Application Support/ManashikiModels", "/var/mobile/Containers/Data/Application/AAAA",
             "store:~/Library/Application Support/ManashikiModels"),
            ("/var/mobile/Containers/Data/Application/BBBB/Library/Application Support/ManashikiModels", "/var/mobile/Containers/Data/Application/BBBB/",
             "store:~/Library/Application Support/ManashikiModels"),
            ("/private/var/group/models/../models", "/Users/me", "store:/private/var/group/models"),
            ("/Users/me2/models", "/Users/me", "store:/Users/me2/models"),
          ])
    func keychainAccount(store: String, home: String, account: String) {
        #expect(AppTrustMarks.keychainAccount(for: URL(fileURLWithPath: store), home: home) == account)
    }
}
