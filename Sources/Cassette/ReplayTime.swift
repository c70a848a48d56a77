import Foundation

/// Which day a replayed response speaks of (``Tape/Options/time``): the recording's (the
/// default), or today's.
///
/// A cassette recorded on one day is replayed for months, and everything in it that is a time was
/// true on the recording's day: a `Set-Cookie` that expired a day after the recording is dropped by
/// `HTTPCookieStorage` at once, a token's `exp` says it expired, `Date` and `Last-Modified` make
/// "updated 3 minutes ago" depend on the day the test runs. Two ways out:
///
/// - ``recorded`` (the default) replays every byte as recorded, and the code under test reads the
///   recording's clock, ``Tape/now``, instead of the real one.
/// - ``shifted`` moves every time in a replayed response by the time since its interaction was
///   recorded (`recordedAt`): the `Date`, `Expires`, `Last-Modified` and `Retry-After` fields, each
///   cookie's `Expires` (a `Max-Age` stays, it is relative), the `exp`, `iat` and `nbf` claims of
///   the JWTs in header fields, cookies and JSON strings, and the JSON values you name with
///   ``addingJSONPaths(_:)``. Each keeps its form: an HTTP date stays an HTTP date, an ISO 8601
///   string keeps its precision and zone, seconds since 1970 stay numbers. A JWT is re-encoded
///   with its new payload and its recorded signature, which no longer verifies it: give shifted
///   tokens only to code that reads them without checking the signature. What moved is listed in
///   ``Tape/Report/movedTimes``; a value that cannot be read is left as it is, with a warning.
///
/// ```swift
/// let tape = try Tape(named: "login", options: Tape.Options(time: .shifted.addingJSONPaths("session.expires_at")))
/// ```
public struct ReplayTime: Sendable, Equatable {
    /// Whether replayed times move to now.
    package let shifts: Bool
    /// The JSON paths whose values are times (`expires_at`, `token.expires_at`, `items[*].updated`).
    package private(set) var jsonPaths: [String]

    /// Every byte as recorded; the code under test reads ``Tape/now``. The default.
    public static let recorded = ReplayTime(shifts: false, jsonPaths: [])

    /// Every time in a replayed response moved by the time since it was recorded.
    public static let shifted = ReplayTime(shifts: true, jsonPaths: [])

    /// These JSON paths of response bodies hold times too: ISO 8601 strings, or numbers of
    /// seconds (or milliseconds) since 1970.
    public func addingJSONPaths(_ paths: String...) -> ReplayTime {
        var copy = self
        copy.jsonPaths += paths
        return copy
    }
}
