import Foundation

/// The one bounded-concurrency loop of the package: at most `limit` tasks at once, the next
/// started as soon as one finishes (a sliding window, not batches), each result handed to
/// `onResult` on the calling task as it arrives (completion order).
///
/// ```swift
/// await Concurrently.forEach(models, limit: 4, { await download($0) }) { result in report(result) }
/// ```
package enum Concurrently {
    /// Runs `body` for every item, at most `limit` at once; `onResult` sees each result.
    package static func forEach<Item: Sendable, Result: Sendable>(
        _ items: [Item], limit: Int, _ body: @escaping @Sendable (Item) async -> Result, onResult: (Result) -> Void
    ) async {
        await withTaskGroup(of: Result.self) { group in
            var pending = items[...]
            func addNext() {
                guard let item = pending.popFirst() else { return }
                group.addTask { await body(item) }
            }
            for _ in 0..<max(1, limit) { addNext() }
            while let result = await group.next() {
                onResult(result)
                addNext()
            }
        }
    }

    /// The results of `body` for every item, at most `limit` at once, in completion order.
    package static func map<Item: Sendable, Result: Sendable>(
        _ items: [Item], limit: Int, _ body: @escaping @Sendable (Item) async -> Result
    ) async -> [Result] {
        var results: [Result] = []
        results.reserveCapacity(items.count)
        await forEach(items, limit: limit, body) { results.append($0) }
        return results
    }
}
