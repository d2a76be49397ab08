import Foundation

/// A closure carried by a value type that is otherwise `Hashable` (`DownloadOptions`,
/// `HTTPRequest`): an observer, not a setting, so it takes no part in equality or hashing.
package struct Observer<Body: Sendable>: Sendable, Hashable {
    /// The closure.
    package let body: Body

    package init(_ body: Body) { self.body = body }

    package static func == (_: Observer, _: Observer) -> Bool { true }
    package func hash(into hasher: inout Hasher) {}
}
