import Foundation

/// What the strict parser (`JSONValue.parse(_:limits:)`) accepts beyond the syntax: how deep a
/// document may nest, and how much memory its tree may take as a multiple of its size. Every
/// document the package reads (a manifest, a state file, an index, a catalog, a record, an OCI
/// manifest) goes through it, so a hostile document is refused instead of growing a tree larger
/// than a fixed multiple of what was read: 10 million `{}` (30 MB) are refused at a tree of
/// 240 MB, where Foundation's decoder took 623 MB.
///
/// The tree's memory is counted as it is built: the heap storage of every array and object
/// (their element slots at their actual capacity, with the container's header) and of every
/// string too long to be stored inline, never estimated from the input.
public struct JSONLimits: Sendable, Hashable {
    /// The deepest nesting accepted (a document is depth 0).
    public var maxDepth: Int
    /// The most bytes of tree per byte of input.
    public var treeBytesPerInputByte: Int
    /// Bytes of tree always allowed, whatever the input's size (a small document may build a
    /// tree many times its size: `[[0]]`).
    public var minimumTreeBytes: Int

    /// Limits (defaults: `JSONLimits.default`).
    public init(maxDepth: Int = 128, treeBytesPerInputByte: Int = 8, minimumTreeBytes: Int = 1 << 20) {
        self.maxDepth = maxDepth
        self.treeBytesPerInputByte = treeBytesPerInputByte
        self.minimumTreeBytes = minimumTreeBytes
    }

    /// 128 levels, 8 bytes of tree per byte of input (at least 1 MiB): what any document a
    /// registry, a bundle or this package writes stays within (a catalog or an index takes about
    /// 4, a record with its card less; `JSONLimitsTests`).
    public static let `default` = JSONLimits()

    /// The tree's budget for an input of `count` bytes.
    func treeBudget(forInputOf count: Int) -> Int {
        let (product, overflow) = count.multipliedReportingOverflow(by: treeBytesPerInputByte)
        return max(minimumTreeBytes, overflow ? Int.max : product)
    }
}
