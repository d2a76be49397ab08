// swift-tools-version: 6.0
// The Manashiki model registry SDK, the declarative sync agent and a development registry.
import PackageDescription

let package = Package(
    name: "manashiki-models-swift",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9), .visionOS(.v1)],
    products: [
        .library(name: "Manashiki", targets: ["Manashiki"]),
        .library(name: "ManashikiSync", targets: ["ManashikiSync"]),
        .library(name: "ManashikiRegistry", targets: ["ManashikiRegistry"]),
        .executable(name: "manashiki-sync", targets: ["manashiki-sync"]),
        .executable(name: "manashiki-registry", targets: ["manashiki-registry"]),
    ],
    targets: [
        // OpenSSL's libcrypto (Debian: libssl-dev). Used on Linux only; Apple platforms use CryptoKit.
        // No `pkgConfig:`: the headers and library are on the default paths where it is used
        // (`pkg-config --cflags --libs libcrypto` is just `-lcrypto`, which the module map links),
        // and Xcode's package loader looks a system library's .pc file up on the Mac whatever its
        // platform condition, warning "couldn't find pc file for libcrypto" in every app that
        // adds the package (SwiftPM XCBuildSupport PIFBuilder.addSystemTarget; smithy-swift #629).
        .systemLibrary(name: "CManashikiCrypto"),
        // libcurl's easy API, loaded with dlopen (Linux): streaming with real backpressure,
        // which FoundationNetworking's URLSession cannot pause.
        .target(name: "CManashikiShims", linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux]))]),
        // Internal (no product): the one SHA-256/hex implementation and the one lock type, shared by
        // the SDK, the sync agent, the CLI and the development registry. Only `package` declarations.
        .target(
            name: "ManashikiCore",
            dependencies: [.target(name: "CManashikiCrypto", condition: .when(platforms: [.linux, .android]))]
        ),
        // posix_spawn with chdir and closefrom (Linux only; it compiles to nothing elsewhere).
        .target(name: "CManashikiSpawn"),
        // The package's one way to start a process (`ChildProcess`, Linux and macOS only): the
        // session `command` source, the test harnesses and the benchmark. The SDK starts none.
        .target(name: "ManashikiProcess", dependencies: ["ManashikiCore", .target(name: "CManashikiSpawn", condition: .when(platforms: [.linux]))]),
        // Each library that apps embed carries its privacy manifest (Apple's required-reason
        // APIs; .ci/portability.py keeps it true).
        .target(
            name: "Manashiki",
            dependencies: [
                "ManashikiCore",
                .target(name: "CManashikiShims", condition: .when(platforms: [.linux, .android])),
            ],
            resources: [.copy("PrivacyInfo.xcprivacy")]
        ),
        .target(name: "ManashikiTestSupport", dependencies: ["Manashiki", "ManashikiCore", "ManashikiProcess", "ManashikiRegistry", "ManashikiLoopback"]),
        // Internal (no product): loopback ports and servers the tests and the benchmark start
        // (free ports, nginx). Not test code, so the benchmark can use it: TestSupport imports Testing.
        .target(name: "ManashikiLoopback", dependencies: ["ManashikiRegistry", "ManashikiProcess"]),
        .target(name: "ManashikiRegistry", dependencies: ["ManashikiCore"]),
        .executableTarget(name: "manashiki-registry", dependencies: ["ManashikiRegistry"]),
        .target(name: "ManashikiSync", dependencies: ["Manashiki", "ManashikiCore", "ManashikiProcess"],
                resources: [.copy("PrivacyInfo.xcprivacy")]),
        // The commit `manashiki-sync --version` names: empty (a weak symbol) unless
        // scripts/build-release links the object that defines it (docs/packaging.md).
        .target(name: "CManashikiBuildInfo"),
        .target(name: "ManashikiSyncCLI", dependencies: ["ManashikiSync", "Manashiki", "ManashikiCore", "CManashikiBuildInfo"]),
        .executableTarget(name: "manashiki-sync", dependencies: ["ManashikiSyncCLI"]),
        // Doc tests (docs/development.md, "Doc tests"): the plugin turns every Swift block of
        // README.md and docs/*.md into sources of `manashiki-doc-snippets`, so a snippet that
        // drifts from the API fails the build; ManashikiDocTests runs the `run` blocks, the JSON
        // manifests and the shell commands against the development registry.
        .executableTarget(name: "manashiki-doc-blocks"),
        .plugin(name: "DocBlocksPlugin", capability: .buildTool(), dependencies: ["manashiki-doc-blocks"], path: "Sources/DocBlocksPlugin"),
        .executableTarget(name: "manashiki-doc-snippets", dependencies: ["Manashiki", "ManashikiSync", "ManashikiRegistry"],
                          plugins: ["DocBlocksPlugin"]),
        .executableTarget(name: "manashiki-bench", dependencies: ["ManashikiSyncCLI", "Manashiki", "ManashikiCore", "ManashikiSync", "ManashikiRegistry", "ManashikiProcess", "ManashikiLoopback"]),
        .testTarget(name: "ManashikiCoreTests", dependencies: ["ManashikiCore", "ManashikiTestSupport"]),
        // The tests' own machinery: peers (`.requires(.nginx)`) and scripts/test's install lists.
        .testTarget(name: "ManashikiTestSupportTests", dependencies: ["ManashikiTestSupport"]),
        .testTarget(name: "ManashikiBenchTests", dependencies: ["manashiki-bench", "ManashikiCore", "ManashikiTestSupport"]),
        .testTarget(name: "ManashikiTests", dependencies: ["Manashiki", "ManashikiCore", "ManashikiTestSupport", "ManashikiRegistry", "ManashikiProcess"]),
        .testTarget(name: "ManashikiRegistryTests", dependencies: ["ManashikiRegistry", "ManashikiCore", "Manashiki", "ManashikiTestSupport", "ManashikiLoopback", "manashiki-registry"]),
        .testTarget(name: "ManashikiSyncTests", dependencies: ["ManashikiSync", "Manashiki", "ManashikiCore", "ManashikiTestSupport", "ManashikiRegistry", "ManashikiProcess"]),
        .testTarget(name: "ManashikiSyncCLITests", dependencies: ["ManashikiSyncCLI", "ManashikiSync", "ManashikiCore", "ManashikiRegistry", "ManashikiTestSupport", "ManashikiLoopback", "ManashikiProcess", "manashiki-sync"]),
        .testTarget(name: "ManashikiDocTests", dependencies: ["manashiki-doc-snippets", "Manashiki", "ManashikiSync", "ManashikiRegistry",
                                                             "ManashikiTestSupport", "ManashikiProcess", "ManashikiLoopback", "manashiki-sync", "manashiki-registry"]),
        // The release binary, the Debian package and the Homebrew formula (docs/packaging.md): dist/
        // from scripts/build-release (CI builds it first), installed with dpkg on the machine.
        .testTarget(name: "PackagingTests", dependencies: ["Manashiki", "ManashikiRegistry", "ManashikiTestSupport", "ManashikiProcess", "manashiki-sync"]),
        // Failure injection, crashes, file-system hazards and secrets (docs/reliability.md).
        .testTarget(
            name: "ManashikiReliabilityTests",
            dependencies: ["Manashiki", "ManashikiCore", "ManashikiSync", "ManashikiSyncCLI", "ManashikiRegistry", "ManashikiTestSupport", "ManashikiProcess", "manashiki-sync"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
