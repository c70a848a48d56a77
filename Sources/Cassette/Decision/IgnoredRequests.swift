import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Requests that always go live, whatever the record mode: never matched, recorded, reported as
/// misses or refused — also in mode `none` and on CI. VCR's `ignore_hosts`, `ignore_localhost`
/// and `ignore_request`; Polly's passthrough routes.
///
/// ```swift
/// // A local test server and a telemetry host go live; everything else is the cassette's.
/// Tape.Options(ignoredRequests: IgnoredRequests(hosts: ["telemetry.example.com"], localhost: true))
/// ```
///
/// A test that depends on an ignored host needs that host up wherever it runs, CI included: its
/// requests are never replayed. Stubs still answer an ignored request they match.
public struct IgnoredRequests: Sendable {
    /// Hosts whose requests go live, compared without regard to case (`api.example.com`; a
    /// subdomain is another host).
    public var hosts: [String]
    /// Whether requests to this machine go live: `localhost`, `127.0.0.1` and `::1`.
    public var localhost: Bool
    /// Ports whose requests go live, on any host; a URL without a port has its scheme's (80 for
    /// `http` and `ws`, 443 for `https` and `wss`).
    public var ports: [Int]
    /// Any other request that goes live: true for a request to ignore, given the request as sent.
    public var predicate: (@Sendable (URLRequest) -> Bool)?

    /// The hosts, this machine, the ports and the predicate whose requests go live.
    public init(
        hosts: [String] = [], localhost: Bool = false, ports: [Int] = [], where predicate: (@Sendable (URLRequest) -> Bool)? = nil
    ) {
        self.hosts = hosts
        self.localhost = localhost
        self.ports = ports
        self.predicate = predicate
    }

    /// No request is ignored: the default.
    public static let none = IgnoredRequests()

    /// Whether no request is ignored.
    package var isEmpty: Bool { hosts.isEmpty && !localhost && ports.isEmpty && predicate == nil }

    /// The names of this machine that ``localhost`` covers.
    static let localhostNames: Set<String> = ["localhost", "127.0.0.1", "::1"]

    /// Whether the request to `url` is ignored; `sent` makes the request as sent, asked only by the predicate.
    func ignores(url: String, sent: () -> URLRequest) -> Bool {
        guard !isEmpty else { return false }
        if !hosts.isEmpty || localhost || !ports.isEmpty, let components = URLComponents(string: url) {
            let host = (components.host ?? "").lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
            if localhost, Self.localhostNames.contains(host) { return true }
            if hosts.contains(where: { $0.lowercased() == host }) { return true }
            if !ports.isEmpty, let port = components.port ?? Self.defaultPort(of: components.scheme), ports.contains(port) { return true }
        }
        return predicate?(sent()) ?? false
    }

    private static func defaultPort(of scheme: String?) -> Int? {
        switch scheme?.lowercased() {
        case "http", "ws": return 80
        case "https", "wss": return 443
        default: return nil
        }
    }
}
