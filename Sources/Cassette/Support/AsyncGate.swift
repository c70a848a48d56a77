import Foundation

/// A first-in, first-out lock for async code: waiters suspend instead of blocking a thread.
package final class AsyncGate: Sendable {
    package init() {}

    private let state = Locked((held: false, waiters: [CheckedContinuation<Void, Never>]()))

    package func acquire() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let enterNow = state.withLock { state -> Bool in
                if !state.held {
                    state.held = true
                    return true
                }
                state.waiters.append(continuation)
                return false
            }
            if enterNow { continuation.resume() }
        }
    }

    package func release() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            if state.waiters.isEmpty {
                state.held = false
                return nil
            }
            return state.waiters.removeFirst()
        }
        next?.resume()
    }
}
