// Stand-in for Apple's os module as the package uses it: Logger (os/logger: iOS 14, macOS 11,
// tvOS 14, watchOS 7, visionOS 1) and its OSLogMessage interpolation with `privacy:`.
public struct OSLogPrivacy: Sendable { public static let `public` = OSLogPrivacy(); public static let `private` = OSLogPrivacy() }
public struct OSLogInterpolation: StringInterpolationProtocol {
    public init(literalCapacity: Int, interpolationCount: Int) {}
    public mutating func appendLiteral(_ literal: String) {}
    public mutating func appendInterpolation(_ value: @autoclosure @escaping () -> String, privacy: OSLogPrivacy = .private) {}
}
public struct OSLogMessage: ExpressibleByStringInterpolation, ExpressibleByStringLiteral {
    public init(stringInterpolation: OSLogInterpolation) {}
    public init(stringLiteral value: String) {}
}
public struct Logger: Sendable {
    public init(subsystem: String, category: String) {}
    public func fault(_ message: OSLogMessage) {}
    public func error(_ message: OSLogMessage) {}
}
