import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Copy-on-write clones of files (`FileCopy` tries one before copying bytes).
enum FileClone {
    /// Creates `name` in the directory open as `directoryFD` as a clone of the file open as
    /// `source`; true when it did. Apple platforms: `fclonefileat(2)` — macOS 10.12, iOS 10,
    /// tvOS 10, watchOS 3 (`<sys/clonefile.h>`, which the Darwin module exports), below every
    /// deployment target;
    /// APFS shares the blocks, other file systems fail (ENOTSUP, EXDEV). Elsewhere: false
    /// (Linux copies with `copy_file_range`, which reflinks where the file system can).
    ///
    /// clonefile(2): the clone "has its own copy of attributes ... identical to those of the
    /// named file src", so a read-only source (0444, a protected bundle) gives a clone the
    /// caller opens `O_RDWR` in vain; owner read and write are added (a failure removes the
    /// clone and answers false, so the caller copies). `CLONE_NOOWNERCOPY`: owned by this
    /// process's user even when it runs as root, like a file it creates.
    static func clone(_ source: Int32, into directoryFD: Int32, name: String) -> Bool {
        #if os(macOS) || os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
        guard fclonefileat(source, directoryFD, name, UInt32(CLONE_NOOWNERCOPY)) == 0 else { return false }
        var info = stat()
        guard fstat(source, &info) == 0, fchmodat(directoryFD, name, (info.st_mode & 0o7777) | 0o600, 0) == 0 else {
            _ = unlinkat(directoryFD, name, 0)
            return false
        }
        return true
        #else
        return false
        #endif
    }
}
