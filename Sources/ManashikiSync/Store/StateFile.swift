import Foundation
import Manashiki
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads and atomically writes `<store>/.manashiki/state.json`.
///
/// Writes go to `state.json.tmp.<random>`, are fsynced, renamed over `state.json`, and the
/// directory is fsynced: a crash leaves either the old or the new state, never half of one.
public enum StateFile {
    /// What reading the state file found.
    public enum ReadResult: Sendable, Equatable {
        /// No state file: a new store, or one restored from a backup without it.
        case missing
        /// The state.
        case loaded(StoreState)
        /// A state file that cannot be used (corrupt); the store is then treated as unknown and
        /// every file is re-hashed.
        case unusable(String)
        /// A state file written by a newer agent (this format version): never overwrite it;
        /// the agent must be upgraded.
        case newer(Int)
    }

    /// Reads the state file of `layout`.
    public static func read(_ layout: StoreLayout) -> ReadResult {
        guard let data = FileManager.default.contents(atPath: layout.stateFile.path) else { return .missing }
        struct Header: Decodable { var formatVersion: Int }
        guard let header = try? JSONDecoder().decode(Header.self, from: data) else {
            return .unusable("state.json is not valid JSON")
        }
        if header.formatVersion > StoreState.currentFormatVersion { return .newer(header.formatVersion) }
        guard header.formatVersion == StoreState.currentFormatVersion else {
            return .unusable("state.json has format version \(header.formatVersion); this version reads \(StoreState.currentFormatVersion)")
        }
        do { return .loaded(try JSONDecoder().decode(StoreState.self, from: data)) } catch {
            return .unusable("state.json could not be decoded")
        }
    }

    /// What to tell a person whose store was written by a newer agent.
    public static func newerFormatMessage(_ version: Int) -> String {
        "the store's state file was written by a newer manashiki-sync (format \(version); this one reads \(StoreState.currentFormatVersion)); upgrade this agent — nothing was changed"
    }

    /// Writes `state` atomically.
    /// - Throws: `APIError.fileSystem` when the file cannot be written.
    public static func write(_ state: StoreState, to layout: StoreLayout) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys] // compact: read on every run
        let data = try encoder.encode(state)
        let temp = layout.metadataDirectory.appendingPathComponent("state.json.tmp.\(UUID().uuidString.prefix(8))")
        let fd = open(temp.path, O_WRONLY | O_CREAT | O_EXCL, 0o644)
        guard fd >= 0 else { throw APIError.fileSystem(operation: "write", path: temp.path, code: errno) }
        var ok = data.withUnsafeBytes { raw -> Bool in
            var offset = 0
            while offset < raw.count {
                let n = Glibc_write(fd, raw.baseAddress! + offset, raw.count - offset)
                if n < 0 { if errno == EINTR { continue }; return false }
                offset += n
            }
            return true
        }
        let writeErrno = errno
        if ok && (try? POSIX.sync(fd, path: temp.path)) == nil { ok = false }
        close(fd)
        guard ok else {
            unlink(temp.path)
            throw APIError.fileSystem(operation: "write", path: temp.path, code: writeErrno == 0 ? EIO : writeErrno)
        }
        guard rename(temp.path, layout.stateFile.path) == 0 else {
            let code = errno
            unlink(temp.path)
            throw APIError.fileSystem(operation: "replace", path: layout.stateFile.path, code: code)
        }
        POSIXFile.syncDirectory(layout.metadataDirectory)
    }
}

/// `write(2)`, named so it does not clash with `StateFile.write`.
@inline(__always)
private func Glibc_write(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
    #if canImport(Darwin)
    return Darwin.write(fd, buffer, count)
    #elseif canImport(Musl)
    return Musl.write(fd, buffer, count)
    #else
    return Glibc.write(fd, buffer, count)
    #endif
}
