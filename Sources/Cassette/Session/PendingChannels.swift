import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The channels of one route still answering after `startLoading` returned — a replay waiting
/// for its latency, a recording on its way, a body read elsewhere — so that ending a session
/// Cassette made cancels exactly its tasks in flight (``ProtocolClasses/detach()``), without
/// asking FoundationNetworking for them: its `getAllTasks` reads the session's task registry on
/// the delegate queue, off the work queue that changes it, and a test that ejects the moment its
/// last request answered could trap there (docs/Architecture.md, "Linux facts").
///
/// An instant replay answers inside `startLoading` and is never added. Channels are held weakly
/// and dropped once they close, when the next one is added past a bound that grows with the count.
final class PendingChannels: Sendable {
    private struct Entry {
        weak var channel: ClientChannel?
    }

    private struct State {
        var entries: [ObjectIdentifier: Entry] = [:]
        /// Past this many entries, closed ones are dropped before the next is added.
        var bound = 32
    }

    private let state = Locked(State())

    /// Keeps `channel`, answering after `startLoading` returned.
    func add(_ channel: ClientChannel) {
        state.withLock { state in
            if state.entries.count >= state.bound {
                state.entries = state.entries.filter { $0.value.channel?.isAnswering == true }
                state.bound = max(32, state.entries.count * 2)
            }
            state.entries[ObjectIdentifier(channel)] = Entry(channel: channel)
        }
    }

    /// The tasks of the channels still answering, and forgets every channel.
    func takeTasks() -> [URLSessionTask] {
        let channels = state.withLock { state in
            defer { state = State() }
            return state.entries.values.compactMap(\.channel)
        }
        return channels.compactMap(\.task)
    }
}
