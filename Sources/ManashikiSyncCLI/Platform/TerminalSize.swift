import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The width of a terminal (`TIOCGWINSZ`), where the command runs: Linux and macOS.
enum TerminalSize {
    /// The columns of the terminal on `descriptor`, or nil (not a terminal, or no such ioctl).
    static func columns(of descriptor: Int32) -> Int? {
        #if os(Linux) || os(macOS)
        var size = winsize()
        guard ioctl(descriptor, windowSizeRequest, &size) == 0, size.ws_col > 0 else { return nil }
        return Int(size.ws_col)
        #else
        return nil
        #endif
    }

    #if os(Linux) || os(macOS)
    /// `TIOCGWINSZ`: on Darwin it is a function-like macro that Swift cannot import
    /// (`_IOR('t', 104, struct winsize)`), so its value is spelled out there.
    private static var windowSizeRequest: UInt {
        #if os(macOS)
        return 0x4008_7468
        #else
        return UInt(TIOCGWINSZ)
        #endif
    }
    #endif
}
