import Testing
import Foundation
@testable import ManashikiSync

@Suite("Version requirements")
struct VersionRequirementTests {
    @Test("versions compare numerically, component by component", arguments: [
        ("1.10.0", "1.9.3"), ("2.0", "1.99.99"), ("1.2.1", "1.2"), ("1.0.0", "1.0.0-beta.1"), ("17.0", "16.4.1"),
    ])
    func ordering(_ newer: String, _ older: String) throws {
        #expect(try #require(ModelVersion(newer)) > #require(ModelVersion(older)))
    }

    @Test("missing components count as zero")
    func equality() {
        #expect(ModelVersion("1.2") == ModelVersion("1.2.0"))
        #expect(Set([ModelVersion("1.2")!, ModelVersion("1.2.0")!]).count == 1)
    }

    @Test("texts that are not versions do not parse", arguments: ["1.x", "", "v1.2", "1..2", "1.2.3.4.5", "1.2-", "-1"])
    func invalid(_ text: String) {
        #expect(ModelVersion(text) == nil)
    }

    @Test("requirements accept exactly the versions they describe", arguments: [
        ("latest", "0.0.1", true), ("latest", "anything", true),
        ("1.4.0", "1.4.0", true), ("1.4", "1.4.0", true), ("1.4.0", "1.4.1", false),
        ("^1.2", "1.2.0", true), ("^1.2", "1.9.7", true), ("^1.2", "2.0.0", false), ("^1.2", "1.1.9", false),
        ("^0.3", "0.3.5", true), ("^0.3", "0.4.0", false), ("^1.2", "1.5.0-beta", false),
        ("~1.2", "1.2.9", true), ("~1.2", "1.3.0", false), ("~1", "1.9.0", true), ("~1", "2.0.0", false),
        ("^1.2", "not-a-version", false),
    ])
    func satisfaction(_ requirement: String, _ version: String, _ expected: Bool) throws {
        #expect(try VersionRequirement(parsing: requirement).isSatisfied(by: version) == expected)
    }

    @Test("a bad requirement explains the accepted forms")
    func parseError() {
        #expect(throws: VersionRequirement.ParseError(message: #""1.x" is neither a version nor a range"#, hint: #"use "1.2.0", "^1.2" or "latest""#)) {
            try VersionRequirement(parsing: "1.x")
        }
    }

    @Test("a requirement prints as it is written in a manifest")
    func description() throws {
        for text in ["latest", "1.4.0", "^1.2", "~0.3"] {
            #expect(try VersionRequirement(parsing: text).description == text)
        }
    }
}
