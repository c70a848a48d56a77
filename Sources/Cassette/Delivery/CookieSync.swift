import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Stores the cookies of a response delivered by Cassette in the session's cookie storage,
/// as FoundationNetworking does for a live response and does not for a protocol's (docs/Architecture.md, "Linux facts"):
/// so the next request of the session carries them, recorded or replayed alike.
///
/// Follows the configuration as a live session does: nothing is stored without a cookie
/// storage, when the request's `httpShouldHandleCookies` is off, or when the accept policy is
/// `.never`; `.onlyFromMainDocumentDomain` keeps the cookies of the main document's domain.
/// `httpShouldSetCookies` decides only whether requests carry stored cookies (measured: a live
/// session with it off still stores a response's cookies). The configuration is the route's
/// (``SlotBinding/configuration``), so this runs the same on every platform.
enum CookieSync {
    static func store(cookiesOf response: HTTPURLResponse, for request: URLRequest, configuration: URLSessionConfiguration?) {
        guard response.value(forHTTPHeaderField: "Set-Cookie") != nil, request.httpShouldHandleCookies,
            let url = response.url,
            let configuration,
            let storage = configuration.httpCookieStorage, configuration.httpCookieAcceptPolicy != .never
        else { return }
        let fields = response.allHeaderFields.reduce(into: [String: String]()) { fields, field in
            if let name = field.key as? String, let value = field.value as? String { fields[name] = value }
        }
        var cookies = HTTPCookie.cookies(withResponseHeaderFields: fields, for: url)
        if configuration.httpCookieAcceptPolicy == .onlyFromMainDocumentDomain {
            let mainHost = (request.mainDocumentURL ?? url).host?.lowercased() ?? ""
            cookies = cookies.filter { cookie in
                let domain = cookie.domain.hasPrefix(".") ? String(cookie.domain.dropFirst()).lowercased() : cookie.domain.lowercased()
                return mainHost == domain || mainHost.hasSuffix("." + domain)
            }
        }
        guard !cookies.isEmpty else { return }
        storage.setCookies(cookies, for: url, mainDocumentURL: request.mainDocumentURL ?? url)
    }

    /// `request` carrying the cookies the session's storage holds for its URL, as a live session
    /// sends them on the next hop of a redirect: replacing the previous hop's `Cookie` field, under
    /// the same configuration rules as storing. Unchanged when none apply.
    static func addingCookies(to request: URLRequest, configuration: URLSessionConfiguration?) -> URLRequest {
        guard request.httpShouldHandleCookies, let url = request.url,
            let configuration, configuration.httpShouldSetCookies,
            let cookies = configuration.httpCookieStorage?.cookies(for: url), !cookies.isEmpty
        else { return request }
        var request = request
        for (name, value) in HTTPCookie.requestHeaderFields(with: cookies) {
            request.setValue(value, forHTTPHeaderField: name)
        }
        return request
    }
}
