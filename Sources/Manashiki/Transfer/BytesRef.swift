import Foundation

/// Bytes shared between the hashing task and the I/O thread: a slice of a `Data`, or the
/// writer's own block (which outlives every use, since `consume` awaits the write).
struct BytesRef: @unchecked Sendable {
    private let data: Data?
    private let range: Range<Int>
    private let block: UnsafeRawBufferPointer?

    init(_ data: Data, range: Range<Int>) { self.data = data; self.range = range; block = nil }
    init(block: UnsafeRawBufferPointer) { data = nil; range = 0..<block.count; self.block = block }

    var count: Int { range.count }

    func withBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        if let block { return try body(block) }
        return try data!.withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0[range])) }
    }
}
