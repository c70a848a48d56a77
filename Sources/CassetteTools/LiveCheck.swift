import Cassette
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Drift: each recorded request sent again to the live server, and what its live answer changed:
/// what `cassette check --live` runs (the command is its interface; `--json` gives the findings).
/// A JSON body is one by its `Content-Type` (`BodyContent`).
///
/// Compared: the status; the header fields that change what a client does (`Content-Type`,
/// `Location`, `Cache-Control`, `Content-Encoding`, and the names `Set-Cookie` sets); the body — JSON
/// by structure (members added or removed, a type changed, the shape of array elements), values
/// too with ``Options/values``; other bodies by size, or bytes with ``Options/values``. What
/// re-recording ignores (``IgnoredChanges``) and redacted values are never drift. Only `GET`,
/// `HEAD` and `OPTIONS` are sent unless ``Options/allMethods``; redirects are not followed (a
/// recording is one hop). A recorded request that holds a redaction placeholder is sent only when
/// ``Options/secrets`` gives its value.
package enum LiveCheck {
    /// How the check runs.
    package struct Options: Sendable {
        /// Send every method, not only `GET`, `HEAD` and `OPTIONS`. Default `false`.
        package var allMethods: Bool
        /// Compare values too, not only the structure. Default `false`.
        package var values: Bool
        /// The value of each placeholder (`[REDACTED-1]`, `<API_TOKEN>`) in recorded requests, put
        /// back before sending. Never printed.
        package var secrets: [String: String]
        /// Seconds to wait for each answer. Default 30.
        package var timeout: TimeInterval

        /// Options from their parts; see the properties.
        ///
        /// - Parameters:
        ///   - allMethods: See ``allMethods``.
        ///   - values: See ``values``.
        ///   - secrets: See ``secrets``.
        ///   - timeout: See ``timeout``.
        package init(allMethods: Bool = false, values: Bool = false, secrets: [String: String] = [:], timeout: TimeInterval = 30) {
            self.allMethods = allMethods
            self.values = values
            self.secrets = secrets
            self.timeout = timeout
        }
    }

    /// What became of one recorded interaction.
    package struct Finding: Sendable, Equatable, CustomStringConvertible {
        /// What happened.
        package enum Outcome: Sendable, Equatable {
            /// The live answer is the recorded one, as far as the check compares.
            case unchanged
            /// What differs, one line each (``InteractionDifference``): `response.status: 200 → 503`,
            /// `response.body.$.user.email: removed (…)`.
            case drifted([String])
            /// Not sent, and why.
            case skipped(String)
            /// Sent, but the server could not be reached, and why.
            case unreachable(String)
        }

        /// The cassette.
        package var cassette: URL
        /// The interaction's place in it, from 0 (`interactions[N]`).
        package var index: Int
        /// `GET https://…`, as recorded (redacted).
        package var request: String
        /// What became of it.
        package var outcome: Outcome

        /// Whether the live answer drifted.
        package var drifted: Bool { if case .drifted = outcome { true } else { false } }

        /// `interactions[0] GET https://…: drifted`, then one indented line per difference.
        package var description: String {
            let head = "interactions[\(index)] \(request)"
            switch outcome {
            case .unchanged: return head + ": unchanged"
            case .drifted(let lines): return ([head + ": drifted"] + lines.map { "    " + $0 }).joined(separator: "\n")
            case .skipped(let why): return head + ": skipped (\(why))"
            case .unreachable(let why): return head + ": unreachable (\(why))"
            }
        }
    }

    /// The methods sent without ``Options/allMethods``.
    package static let safeMethods: Set<String> = ["GET", "HEAD", "OPTIONS"]

    /// Checks every interaction of `cassettes` against the live servers, one request at a time.
    ///
    /// - Throws: `CassetteFormatError` when a cassette cannot be read.
    package static func run(_ cassettes: [URL], options: Options = Options()) async throws -> [Finding] {
        // One path for both: the blocking check, on a thread of its own (never one of Swift
        // concurrency's, which a semaphore must not hold).
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try runBlocking(cassettes, options: options) }) }.start()
        }
    }

    /// ``run(_:options:)`` for a caller that may block its thread (a command's main thread): each
    /// request waits on a semaphore for its completion handler.
    package static func runBlocking(_ cassettes: [URL], options: Options = Options()) throws -> [Finding] {
        let session = URLSession(configuration: configuration(options), delegate: NoRedirects(), delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        return try interactions(of: cassettes).map { cassette, index, interaction in
            let outcome: Finding.Outcome
            switch request(for: interaction, options: options) {
            case .failure(let why): outcome = .skipped(why.message)
            case .success(let urlRequest): outcome = compare(send(urlRequest, on: session), with: interaction, options: options)
            }
            return Finding(cassette: cassette, index: index, request: shown(interaction), outcome: outcome)
        }
    }

    /// Sends `request` and waits for its answer.
    static func send(_ request: URLRequest, on session: URLSession) -> Reply {
        let answer = Locked(Reply(data: nil, response: nil, error: nil))
        let done = DispatchSemaphore(value: 0)
        session.dataTask(with: request) { data, response, error in
            answer.withLock { $0 = Reply(data: data, response: response, error: error) }
            done.signal()
        }.resume()
        done.wait()
        return answer.withLock { $0 }
    }

    /// What a request brought back.
    struct Reply: @unchecked Sendable {
        var data: Data?
        var response: URLResponse?
        var error: (any Error)?
    }

    private static func interactions(of cassettes: [URL]) throws -> [(URL, Int, Interaction)] {
        try cassettes.flatMap { cassette in
            try CassetteFile.read(cassette).interactions.enumerated().map { (cassette, $0.offset, $0.element) }
        }
    }

    static func shown(_ interaction: Interaction) -> String {
        "\(interaction.request.method) \(interaction.request.url)"
    }

    /// What ``run(_:options:)`` would do, without sending anything: each interaction either
    /// `.unchanged` (it would be sent) or `.skipped` with why.
    ///
    /// - Throws: `CassetteFormatError` when a cassette cannot be read.
    package static func plan(_ cassettes: [URL], options: Options = Options()) throws -> [Finding] {
        try interactions(of: cassettes).map { cassette, index, interaction in
            let outcome: Finding.Outcome
            switch request(for: interaction, options: options) {
            case .failure(let why): outcome = .skipped(why.message)
            case .success: outcome = .unchanged
            }
            return Finding(cassette: cassette, index: index, request: shown(interaction), outcome: outcome)
        }
    }

    struct Skip: Error {
        var message: String
    }

    static func configuration(_ options: Options) -> URLSessionConfiguration {
        let configuration = ConfigurationHooks.ownConfiguration()
        configuration.urlCache = nil
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.timeoutIntervalForRequest = options.timeout
        return configuration
    }

    /// The live request for `interaction`, with its placeholders filled, or why it is not sent.
    static func request(for interaction: Interaction, options: Options) -> Result<URLRequest, Skip> {
        let recorded = interaction.request
        if let scenario = interaction.scenario {
            return .failure(Skip(message: "a scenario (\(scenario)): the service cannot be asked to answer it again"))
        }
        if let challenge = interaction.challenges.first {
            return .failure(
                Skip(
                    message:
                        "answered after an authentication challenge (\(challenge.method)): the check has no credential to answer it with"))
        }
        guard options.allMethods || safeMethods.contains(recorded.method.uppercased()) else {
            return .failure(Skip(message: "\(recorded.method) is not sent without --all-methods (LiveCheck.Options.allMethods)"))
        }
        func filled(_ text: String) -> String {
            options.secrets.reduce(text) { $0.replacingOccurrences(of: $1.key, with: $1.value) }
        }
        let url = filled(recorded.url)
        var fields: [(String, String)] = []
        for (name, value) in recorded.headers {
            let lowered = name.lowercased()
            if ["content-length", "host", "connection", "transfer-encoding"].contains(lowered) { continue }
            fields.append((name, filled(value)))
        }
        var body = recorded.body.data
        if !options.secrets.isEmpty, let text = recorded.body.text { body = Data(filled(text).utf8) }
        let remaining = ([url] + fields.map(\.1) + [String(decoding: body.prefix(65_536), as: UTF8.self)]).compactMap { text in
            text.range(of: #"\[REDACTED(-\d+)?\]"#, options: .regularExpression).map { String(text[$0]) }
        }
        if let placeholder = remaining.first {
            return .failure(Skip(message: "it holds the redacted value \(placeholder): give it with --secret '\(placeholder)=ENV_VAR'"))
        }
        guard let parsed = URL(string: url), parsed.scheme == "http" || parsed.scheme == "https" else {
            return .failure(Skip(message: "not an http or https URL"))
        }
        var request = URLRequest(url: parsed)
        request.httpMethod = recorded.method
        for (name, value) in fields { request.addValue(value, forHTTPHeaderField: name) }
        if !body.isEmpty { request.httpBody = body }
        return .success(request)
    }

    private static func compare(_ answer: Reply, with recorded: Interaction, options: Options) -> Finding.Outcome {
        if let error = answer.error {
            let urlError = error as? URLError ?? URLError(.unknown)
            let name = Interaction.TransportError(urlError).code.name ?? "URLError \(urlError.code.rawValue)"
            if let response = recorded.response, urlError.code == .timedOut || urlError.code == .networkConnectionLost {
                return .drifted(["error: \(response.status) recorded, \(name) live"])
            }
            return .unreachable("\(name): \(error.localizedDescription)")
        }
        guard let http = answer.response as? HTTPURLResponse else { return .unreachable("no HTTP response") }
        var headers = Interaction.Headers()
        for (name, value) in http.allHeaderFields {
            headers.add("\(name)", "\(value)")
        }
        let body = answer.data ?? Data()
        let live = Interaction.Response(status: http.statusCode, headers: headers, body: .init(body, contentType: headers["Content-Type"]))
        let changes = drift(from: recorded, to: live, values: options.values)
        return changes.isEmpty ? .unchanged : .drifted(changes)
    }

    /// The header fields whose change changes what a client does.
    static let comparedFields = ["Content-Type", "Location", "Cache-Control", "Content-Encoding"]

    /// What differs between `recorded` and the `live` response, as the check compares: of every
    /// difference (``InteractionComparison``, bodies by structure unless `values`), the status,
    /// ``comparedFields``, the cookies set by name, and the body; never a redacted value.
    static func drift(from recorded: Interaction, to live: Interaction.Response, values: Bool) -> [String] {
        guard let before = recorded.response else {
            return ["error: \(recorded.error.map { $0.code.name ?? "an error" } ?? "no response") recorded, \(live.status) live"]
        }
        var answered = recorded
        answered.response = live
        func isRedacted(_ text: String?) -> Bool { text?.contains("[REDACTED") ?? false }
        var changes: [String] = []
        for difference in InteractionComparison.differences(from: recorded, to: answered, depth: values ? .values : .structure) {
            switch difference.place {
            case .status:
                changes.append(difference.description)
            case .responseHeader(let name) where comparedFields.contains { $0.caseInsensitiveCompare(name) == .orderedSame }:
                if !isRedacted(difference.old) { changes.append(difference.description) }
            case .responseBody:
                if !(isRedacted(difference.old) && difference.new != nil) { changes.append(difference.description) }
            default:
                break
            }
        }
        func cookieNames(_ headers: Interaction.Headers) -> Set<String> {
            Set(headers.values(for: "Set-Cookie").compactMap { $0.split(separator: "=", maxSplits: 1).first.map(String.init) })
        }
        let (oldCookies, newCookies) = (cookieNames(before.headers), cookieNames(live.headers))
        for name in newCookies.subtracting(oldCookies).sorted() { changes.append("cookie \(name): now set") }
        for name in oldCookies.subtracting(newCookies).sorted() { changes.append("cookie \(name): no longer set") }
        return changes
    }

    /// Leaves every redirect to the caller: a recording is one hop.
    final class NoRedirects: NSObject, URLSessionTaskDelegate, Sendable {
        func urlSession(
            _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
            newRequest request: URLRequest,
            completionHandler: @escaping @Sendable (URLRequest?) -> Void
        ) {
            completionHandler(nil)
        }
    }
}
