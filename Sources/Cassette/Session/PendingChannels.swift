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
///
/// A channel is added once `startLoading` has decided it, which the tape's report counts first:
/// an eject in between took the tasks without it. So once the tasks were taken, a channel added
/// later has its task cancelled as it comes, as though it had been taken with them.
final class PendingChannels: Sendable {
    private struct Entry {
        weak var channel: ClientChannel?
    }

    private struct State {
        var entries: [ObjectIdentifier: Entry] = [:]
        /// Past this many entries, closed ones are dropped before the next is added.
        var bound = 32
        /// Whether the tasks were taken (``takeTasks()``): the session is ending.
        var taken = false
    }

    private let state = Locked(State())

    /// Keeps `channel`, answering after `startLoading` returned; once the tasks were taken,
    /// cancels its task instead (from a global queue: this runs inside `startLoading`).
    func add(_ channel: ClientChannel) {
        let late = state.withLock { state -> Bool in
            if state.taken { return true }
            if state.entries.count >= state.bound {
                state.entries = state.entries.filter { $0.value.channel?.isAnswering == true }
                state.bound = max(32, state.entries.count * 2)
            }
            state.entries[ObjectIdentifier(channel)] = Entry(channel: channel)
            return false
        }
        if late, let task = channel.task { URLSession.cancel([task]) }
    }

    /// The tasks of the channels still answering; every channel is forgotten, and one added
    /// later is cancelled (``add(_:)``).
    func takeTasks() -> [URLSessionTask] {
        let channels = state.withLock { state in
            defer { state = State(taken: true) }
            return state.entries.values.compactMap(\.channel)
        }
        return channels.compactMap(\.task)
    }
}
