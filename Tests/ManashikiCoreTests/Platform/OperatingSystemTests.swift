import Testing
import ManashikiCore

@Suite("The operating system compiled for")
struct OperatingSystemTests {
    @Test("each system's name in messages (the systems the package is not written for are 'this platform')")
    func names() {
        let names = Dictionary(uniqueKeysWithValues: OperatingSystem.allCases.map { ($0, $0.name) })
        #expect(names == [.iOS: "iOS", .macOS: "macOS", .visionOS: "visionOS", .watchOS: "watchOS", .tvOS: "tvOS",
                          .linux: "Linux", .android: "this platform", .windows: "this platform", .other: "this platform"])
    }

    @Test("the system decided at compile time is the one this test runs on")
    func current() {
        #if os(Linux)
        #expect(OperatingSystem.current == .linux)
        #elseif os(macOS)
        #expect(OperatingSystem.current == .macOS)
        #else
        #expect(OperatingSystem.current != .linux)
        #endif
    }
}
