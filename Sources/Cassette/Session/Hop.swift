import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One request of an exchange: the caller's, or the next one after a redirect.
struct Hop: @unchecked Sendable {
    /// As it goes out: the session's additional header fields added, the body in `httpBody`.
    var request: URLRequest
    var body: RequestBody
    /// 0 for the caller's request, n for the request after the n-th redirect.
    var number = 0
}
