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
    static func clone(_ source: Int32, into directoryFD: Int32, name: String) -> Bool {
        #if os(macOS) || os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
        return fclonefileat(source, directoryFD, name, 0) == 0
        #else
        return false
        #endif
    }
}
