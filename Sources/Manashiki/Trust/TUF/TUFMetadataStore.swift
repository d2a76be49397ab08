import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The trusted metadata of one repository, on disk: `<role>.json` for the current version of
/// each role (the role name percent-encoded as python-tuf does, so `a/b` is `a%2Fb.json`), and
/// `roots/<N>.root.json` for every root version trusted, from the first up (what `export` copies
/// for an offline machine whose pinned root is older).
///
/// Every file is written with `DurableFile` (temporary file, flush, rename, flush the
/// directory), each only after it was verified, roots before `root.json`. A crash leaves each
/// file old or new, never half; the next update verifies every file it reads again, so a file
/// left from an interrupted update can only serve as what it is: verified metadata.
///
/// Nothing but metadata ends in `.json` here (the conformance suite reads every such file).
public struct TUFMetadataStore: Sendable, Hashable {
    /// The directory (`<store>/.manashiki/tuf/metadata`, or the `--metadata-dir` given).
    public let directory: URL

    /// A store in `directory` (created on the first write).
    public init(directory: URL) { self.directory = directory.standardizedFileURL }

    /// The folder of root versions.
    public static let rootsFolderName = "roots"

    /// `<role>.json`'s name for `role` (percent-encoded: everything but `A–Z a–z 0–9 _ . - ~`).
    public static func fileName(of role: String) -> String { percentEncoded(role) + ".json" }

    /// `role`'s name in a URL or a file name: Python's `urllib.parse.quote(role, "")`.
    static func percentEncoded(_ role: String) -> String {
        var out = ""
        for byte in role.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "-"), UInt8(ascii: "~"):
                out.append(Character(Unicode.Scalar(byte)))
            default:
                out += "%" + String(byte >> 4, radix: 16, uppercase: true) + String(byte & 0xF, radix: 16, uppercase: true)
            }
        }
        return out
    }

    /// The stored current version of `role`, nil when there is none (or it is larger than
    /// `maxLength`: it cannot be valid then).
    public func read(_ role: String, maxLength: Int) -> Data? {
        Self.readBounded(directory.appendingPathComponent(Self.fileName(of: role)), maxLength: maxLength)
    }

    /// The stored root version `version`, if any.
    public func readRoot(version: Int, maxLength: Int) -> Data? {
        Self.readBounded(rootsDirectory.appendingPathComponent("\(version).root.json"), maxLength: maxLength)
    }

    /// Stores `data` as the current version of `role`.
    public func write(_ role: String, _ data: Data) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try DurableFile.replace(directory.appendingPathComponent(Self.fileName(of: role)), with: data)
    }

    /// Stores root `version` (in `roots/`, then as `root.json`).
    public func writeRoot(version: Int, _ data: Data) throws {
        try FileManager.default.createDirectory(at: rootsDirectory, withIntermediateDirectories: true)
        try DurableFile.replace(rootsDirectory.appendingPathComponent("\(version).root.json"), with: data)
        try write(TUFRoleName.root, data)
    }

    /// Removes the stored version of `role` (fast-forward recovery, §5.3.11).
    public func remove(_ role: String) {
        _ = unlink(directory.appendingPathComponent(Self.fileName(of: role)).path)
    }

    /// `roots/`.
    public var rootsDirectory: URL { directory.appendingPathComponent(Self.rootsFolderName, isDirectory: true) }

    /// The root versions stored in `roots/`, ascending.
    public func rootVersions() -> [Int] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: rootsDirectory.path)) ?? []
        return names.compactMap { name -> Int? in
            guard name.hasSuffix(".root.json") else { return nil }
            return Int(name.dropLast(".root.json".count))
        }.sorted()
    }

    /// The file at `url` if it is a regular file (not a symbolic link) of at most `maxLength`
    /// bytes.
    static func readBounded(_ url: URL, maxLength: Int) -> Data? {
        let fd = open(url.path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        let handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, Int64(info.st_size) <= Int64(maxLength) else { return nil }
        do {
            guard let data = try handle.read(upToCount: maxLength + 1) else { return Data() } // empty
            return data.count <= maxLength ? data : nil
        } catch {
            return nil
        }
    }
}
