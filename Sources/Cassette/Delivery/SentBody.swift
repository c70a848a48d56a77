import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The upload progress a recording reports to the caller: what the live upload reports, piece by
/// piece as it goes — and, when the server has answered before FoundationNetworking reported the
/// whole body sent (it reports from libcurl's progress callback, which a busy machine can run late
/// or not at all for a small body), the rest before the caller hears the answer. So the caller
/// always sees its body sent before the response, as live normally and as a replay do.
/// Only the first hop of an exchange reports: a redirect's next request is Cassette's own.
final class SentBody: Sendable {
    private let task: UncheckedSendable<URLSessionTask?>
    /// The session that runs the task, when Cassette made it.
    private let known: UncheckedSendable<URLSession?>
    private let count: Int64
    private let expected: Int64
    private let reported = Locked<Int64>(0)

    /// - Parameters:
    ///   - body: the hop's body; `firstHop` false for a redirect's request, which reports nothing.
    init(_ body: RequestBody, firstHop: Bool, task: URLSessionTask?, known: URLSession?) {
        self.task = UncheckedSendable(task)
        self.known = UncheckedSendable(known)
        count = firstHop ? Int64(body.data?.count ?? 0) : 0
        expected = body.expectedLength
    }

    /// A piece the live upload reported; ignored when the total was reported already.
    func report(piece: Int64, total: Int64, expected: Int64) {
        guard count > 0,
            reported.withLock({ reported in
                guard total > reported else { return false }
                reported = total
                return true
            })
        else { return }
        TaskDelegateCalls.sentBody(of: task.value, known: known.value, piece: piece, total: total, expected: expected)
    }

    /// Reports what the live upload has not reported yet: the server answered, so it was sent.
    func reportTheRest() {
        let before = reported.withLock { reported -> Int64 in
            defer { reported = max(reported, count) }
            return reported
        }
        guard count > 0, before < count else { return }
        if before == 0 {
            TaskDelegateCalls.sentBody(of: task.value, known: known.value, count: Int(count), expected: expected)
        } else {
            TaskDelegateCalls.sentBody(of: task.value, known: known.value, piece: count - before, total: count, expected: expected)
        }
    }
}
