import Testing
@testable import Manashiki
import ManashikiCore

@Suite("Platform.current")
struct PlatformCurrentTests {
    @Test("the wire value of each operating system (a system the contract does not name reads as linux)")
    func wireValues() {
        let values = Dictionary(uniqueKeysWithValues: OperatingSystem.allCases.map { ($0, Platform($0)) })
        #expect(values == [.iOS: .ios, .macOS: .macos, .visionOS: .visionos, .watchOS: .watchos, .tvOS: .tvos,
                           .android: .android, .windows: .windows, .linux: .linux, .other: .linux])
    }

    @Test("Platform.current is the wire value of the system compiled for")
    func current() {
        #expect(Platform.current == Platform(OperatingSystem.current))
    }
}
