import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The `HTTPURLResponse`s a tape's sessions replay, each built once and handed to every task that
/// gets the same head.
///
/// Building one is most of what a replay costs: FoundationNetworking's `HTTPURLResponse.init`
/// sanitises and capitalises every header field name, about 40 % of an instant replay in
/// CassetteBench at 64 in flight. An `HTTPURLResponse` is immutable (its fields are read-only, on
/// every platform), and every reader of it — the loading system, a delegate, `data(for:)` — only
/// reads, so one instance serves every task whose head is the same: the same request URL, the
/// same recorded URL, status and header fields. A head that differs in any of them (a shifted
/// `Date`, a filled placeholder) is built anew. What a caller can tell apart is identity alone
/// (`===` between two tasks' responses), which no client relies on.
///
/// Bounded: at ``capacity`` distinct heads the cache starts again, so a tape that replays many
/// URLs keeps at most that many responses.
final class ResponseHeads: Sendable {
    /// What makes two heads the same response. Hashed by the URLs and status alone: hashing every
    /// header field cost a miss (a recording's first replay) more than the lookup saves; equal
    /// keys compare every field.
    private struct Key: Hashable {
        let requestURL: String
        let recordedURL: String?
        let status: Int
        let headers: Interaction.Headers

        func hash(into hasher: inout Hasher) {
            hasher.combine(requestURL)
            hasher.combine(recordedURL)
            hasher.combine(status)
        }
    }

    /// The most heads kept at once.
    static let capacity = 256

    private struct Built {
        var heads: [Key: UncheckedSendable<HTTPURLResponse>] = [:]
        /// The request URLs of `heads`.
        var requestURLs: Set<String> = []
    }

    private let built = Locked(Built())

    /// The response for `response` answering a request for `requestURL`: the one built before for
    /// the same head, or a new one (nil when the status cannot be a response's, as
    /// ``Interaction/Response/urlResponse(for:)`` says).
    func head(for response: Interaction.Response, requestURL: URL) -> HTTPURLResponse? {
        let key = Key(requestURL: requestURL.absoluteString, recordedURL: response.url, status: response.status, headers: response.headers)
        if let head = built.withLock({ $0.heads[key] }) { return head.value }
        guard let head = response.urlResponse(for: requestURL) else { return nil }
        built.withLock { built in
            if built.heads.count >= Self.capacity {
                built.heads.removeAll(keepingCapacity: true)
                built.requestURLs.removeAll(keepingCapacity: true)
            }
            built.heads[key] = UncheckedSendable(head)
            built.requestURLs.insert(key.requestURL)
        }
        return head
    }

    /// Whether a head kept here answered a request for `requestURL`: a replay for it again is
    /// likely to find its head built (``DecisionQueue``).
    func answered(_ requestURL: URL) -> Bool {
        let url = requestURL.absoluteString
        return built.withLock { $0.requestURLs.contains(url) }
    }

    /// How many heads are kept (for tests).
    var count: Int { built.withLock { $0.heads.count } }
}
