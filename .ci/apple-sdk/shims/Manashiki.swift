// Apple-only members the Manashiki target uses, with the Swift signatures Apple documents
// (developer.apple.com/documentation/<path>), added to the target's Apple view by
// .ci/apple-typecheck.py because corelibs Foundation on Linux lacks them or marks them
// unavailable. Bodies are placeholders: only types are checked. `//@only P,Q` … `//@end`
// keeps a declaration for those platforms only (where Apple marks it unavailable elsewhere).
import Foundation; import FoundationNetworking; import Glibc

// foundation/filemanager/containerurl(forsecurityapplicationgroupidentifier:): iOS 7, macOS 10.8, tvOS 9, watchOS 2, visionOS 1
extension FileManager {
    func containerURL(forSecurityApplicationGroupIdentifier groupIdentifier: String) -> URL? { nil }
}
// foundation/urlsessionconfiguration: background(withIdentifier:) iOS 8, macOS 10.10, tvOS 9, watchOS 2;
// sharedContainerIdentifier iOS 8, macOS 10.10, tvOS 9, watchOS 2; sessionSendsLaunchEvents iOS 7, macOS 11,
// tvOS 9, watchOS 2; allowsExpensive/ConstrainedNetworkAccess iOS 13, macOS 10.15, tvOS 13, watchOS 6;
// waitsForConnectivity iOS 11, macOS 10.13, tvOS 11, watchOS 4 (all visionOS 1)
extension URLSessionConfiguration {
    class func background(withIdentifier identifier: String) -> URLSessionConfiguration { .default }
    var sharedContainerIdentifier: String? { get { nil } set {} }
    var sessionSendsLaunchEvents: Bool { get { false } set {} }
    var allowsExpensiveNetworkAccess: Bool { get { true } set {} }
    var allowsConstrainedNetworkAccess: Bool { get { true } set {} }
    var waitsForConnectivity: Bool { get { false } set {} }
}
// foundation/urlerror/backgroundtaskcancelledreason-swift.property, …/downloadtaskresumedata:
// iOS 13, macOS 10.15, tvOS 13, watchOS 6, visionOS 1
extension URLError {
    enum BackgroundTaskCancelledReason: Int, Sendable { case userForceQuitApplication, backgroundUpdatesDisabled, insufficientSystemResources }
    var backgroundTaskCancelledReason: BackgroundTaskCancelledReason? { nil }
    var downloadTaskResumeData: Data? { nil }
}
// foundation/processinfo/performexpiringactivity(withreason:using:): iOS 8.2, Mac Catalyst 13.1,
// tvOS 9, watchOS 2, visionOS 1; not macOS
//@only iOS,macCatalyst,tvOS,watchOS,visionOS
extension ProcessInfo {
    func performExpiringActivity(withReason reason: String, using block: @escaping @Sendable (Bool) -> Void) {}
}
//@end
// foundation/nsurlauthenticationmethodservertrust: iOS 3, macOS 10.6, tvOS 9, watchOS 2, visionOS 1
let NSURLAuthenticationMethodServerTrust = "NSURLAuthenticationMethodServerTrust"
// Darwin's <sys/stat.h> spells the modification time st_mtimespec (Glibc: st_mtim).
extension stat { var st_mtimespec: timespec { st_mtim } }
