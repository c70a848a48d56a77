import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a ``Stub`` answers: a response (status, header fields, body) or a transport error, and
/// how it arrives in time.
///
/// ```swift
/// .json(User(id: 42, name: "Ada"))                                  // 200, application/json
/// .text("Not here", status: 404)
/// .file(fixtures.appendingPathComponent("user.json"), headers: ["Content-Type": "application/json"])
/// .httpMessage(file: fixtures.appendingPathComponent("teapot.http")) // a saved `curl -i` response
/// .error(.notConnectedToInternet)
/// .json(feed).requestTime(0.5, responseTime: 2)                     // head after 0.5 s, body over 2 s more
/// .data(image).downloadSpeed(.edge)                                 // body at 16 KB/s
/// .chunks([part1, part2, part3], delay: 0.2)                        // three pieces, 0.2 s apart
/// ```
///
/// Timing works as in OHHTTPStubs: the head arrives after `requestTime`; the body is spread over
/// `responseTime` (a delegate sees it in pieces; completion handlers and `async` calls get it
/// whole at the end), or over the time its size takes at a `DownloadSpeed`. A request timeout
/// shorter than a wait turns the response into `URLError(.timedOut)`, as live.
public struct StubResponse: Sendable {
    /// How long the body takes after the head.
    package enum ResponseTime: Sendable, Equatable {
        /// This many seconds, whatever the body's size.
        case seconds(TimeInterval)
        /// As long as the body's size takes at this speed (the presets of cassettes: `.edge`, `.threeG`…).
        case downloadSpeed(DownloadSpeed)
    }

    /// The HTTP status.
    public var status: Int
    /// The response's header fields.
    public var headers: Interaction.Headers
    /// The body's bytes.
    public var body: Data
    /// A transport error instead of a response.
    public var error: URLError.Code?
    /// Seconds before the head arrives.
    package var requestTime: TimeInterval = 0
    /// How long the body takes after the head.
    package var responseTime: ResponseTime = .seconds(0)
    /// Sizes of the pieces the body is sent in, with ``chunkDelay`` between them; nil to spread it
    /// over `responseTime`.
    package var chunkSizes: [Int]?
    /// Seconds between two pieces of ``chunkSizes``.
    package var chunkDelay: TimeInterval = 0
    /// Why a response could not be built (a file that cannot be read): the error's description.
    var failureDescription: String?

    /// A response from its parts.
    public init(status: Int = 200, headers: Interaction.Headers = [:], body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    // MARK: Builders

    /// These bytes.
    public static func data(_ data: Data, status: Int = 200, headers: Interaction.Headers = [:]) -> StubResponse {
        StubResponse(status: status, headers: headers, body: data)
    }

    /// UTF-8 text, `Content-Type: text/plain; charset=utf-8` unless `headers` say otherwise.
    public static func text(_ text: String, status: Int = 200, headers: Interaction.Headers = [:]) -> StubResponse {
        StubResponse(status: status, headers: headers.adding("Content-Type", "text/plain; charset=utf-8"), body: Data(text.utf8))
    }

    /// An `Encodable` value as JSON (`JSONEncoder`, keys sorted), `Content-Type: application/json`
    /// unless `headers` say otherwise. A value that cannot be encoded gives a transport error
    /// (`cannotParseResponse`) saying why, never a crash.
    public static func json(_ value: some Encodable & Sendable, status: Int = 200, headers: Interaction.Headers = [:]) -> StubResponse {
        // Foundation's JSON coder stays here, not the project's JSON: the value is the user's
        // `Encodable`, which speaks only to an `Encoder`.
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        do {
            return StubResponse(
                status: status, headers: headers.adding("Content-Type", "application/json"), body: try encoder.encode(value))
        } catch {
            return .failure(.cannotParseResponse, "Cassette stub: the JSON response cannot be encoded: \(error)")
        }
    }

    /// A JSON object as `JSONSerialization` takes it (`[String: Any]`, `[Any]`…), for code moving
    /// from `responseWithJSONObject:`. An object `JSONSerialization` refuses gives a transport
    /// error (`cannotParseResponse`), never a crash.
    public static func json(object: Any, status: Int = 200, headers: Interaction.Headers = [:]) -> StubResponse {
        // Foundation's JSON coder stays here, not the project's JSON: `JSONSerialization` is the
        // API this stub stands in for, and the only reader of the `Any` trees it takes.
        guard JSONSerialization.isValidJSONObject(object),
            // (Foundation's coder, as above: the caller's `Any` tree.)
            let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        else {
            // The message names the coder the caller's object was written for.
            return .failure(
                .cannotParseResponse, "Cassette stub: the object given to .json(object:) is not valid JSON for JSONSerialization")
        }
        return StubResponse(status: status, headers: headers.adding("Content-Type", "application/json"), body: data)
    }

    /// Form fields as an `application/x-www-form-urlencoded` body (URLMock's parameter
    /// dictionaries), in name order.
    public static func form(_ fields: [String: String], status: Int = 200, headers: Interaction.Headers = [:]) -> StubResponse {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        let encode = { (text: String) in text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text }
        let body = fields.sorted { $0.key < $1.key }.map { encode($0.key) + "=" + encode($0.value) }.joined(separator: "&")
        return StubResponse(
            status: status, headers: headers.adding("Content-Type", "application/x-www-form-urlencoded"), body: Data(body.utf8))
    }

    /// A file's bytes. A file that cannot be read gives a transport error (`fileDoesNotExist`)
    /// naming it, so the test fails with the reason.
    public static func file(_ url: URL, status: Int = 200, headers: Interaction.Headers = [:]) -> StubResponse {
        guard let data = FileManager.default.contents(atPath: url.path) else {
            return .failure(.fileDoesNotExist, "Cassette stub: cannot read the response file \(url.path)")
        }
        return StubResponse(status: status, headers: headers, body: data)
    }

    /// A raw HTTP response: status line, header fields, blank line, body, as `curl -i` prints it
    /// (CRLF or LF; an interim `100 Continue` is skipped). The body is every byte after the blank
    /// line; `Content-Length` plays no part.
    public static func httpMessage(_ message: Data) -> StubResponse {
        do {
            let response = try HTTPMessageCassetteCodec.decodeResponse(message)
            return StubResponse(status: response.status, headers: response.headers, body: response.body.data)
        } catch {
            return .failure(.cannotParseResponse, "Cassette stub: the HTTP message cannot be read: \(error.description)")
        }
    }

    /// A raw HTTP response read from a file (see ``httpMessage(_:)``), such as the output of
    /// `curl -i URL > response.http`.
    public static func httpMessage(file url: URL) -> StubResponse {
        guard let data = FileManager.default.contents(atPath: url.path) else {
            return .failure(.fileDoesNotExist, "Cassette stub: cannot read the HTTP message file \(url.path)")
        }
        var response = httpMessage(data)
        if let description = response.failureDescription { response.failureDescription = "\(description) (\(url.path))" }
        return response
    }

    /// A transport error instead of a response: `.error(.notConnectedToInternet)`, `.error(.timedOut)`.
    public static func error(_ code: URLError.Code) -> StubResponse {
        var response = StubResponse(status: 0)
        response.error = code
        return response
    }

    /// The body in these pieces, `delay` seconds apart (the first right after the head). A
    /// delegate receives each piece as it comes; completion handlers and `async` calls get the
    /// whole body after the last.
    public static func chunks(_ chunks: [Data], delay: TimeInterval, status: Int = 200, headers: Interaction.Headers = [:]) -> StubResponse
    {
        var response = StubResponse(status: status, headers: headers, body: chunks.reduce(Data(), +))
        response.chunkSizes = chunks.map(\.count)
        response.chunkDelay = max(0, delay)
        return response
    }

    static func failure(_ code: URLError.Code, _ description: String) -> StubResponse {
        var response = error(code)
        response.failureDescription = description
        return response
    }

    // MARK: Modifiers

    /// The head after `requestTime` seconds, the body over `responseTime` more.
    public func requestTime(_ requestTime: TimeInterval, responseTime: TimeInterval) -> StubResponse {
        var copy = self
        copy.requestTime = max(0, requestTime)
        copy.responseTime = .seconds(max(0, responseTime))
        return copy
    }

    /// The body over `responseTime` seconds after the head.
    public func responseTime(_ responseTime: TimeInterval) -> StubResponse {
        var copy = self
        copy.responseTime = .seconds(max(0, responseTime))
        return copy
    }

    /// The body at `speed` instead of over a fixed time: `.downloadSpeed(.edge)` (16 KB/s).
    public func downloadSpeed(_ speed: DownloadSpeed) -> StubResponse {
        var copy = self
        copy.responseTime = .downloadSpeed(speed)
        return copy
    }

    /// The same response with another status.
    public func status(_ status: Int) -> StubResponse {
        var copy = self
        copy.status = status
        return copy
    }

    /// The same response with one more header field (a repeated name adds a value).
    public func header(_ name: String, _ value: String) -> StubResponse {
        var copy = self
        copy.headers.add(name, value)
        return copy
    }

    // MARK: Delivery

    /// The seconds from the head to the end of the body.
    var bodySeconds: TimeInterval {
        if let chunkSizes { return chunkDelay * Double(max(0, chunkSizes.count - 1)) }
        switch responseTime {
        case .seconds(let seconds): return seconds
        case .downloadSpeed(let speed): return speed.seconds(for: body.count)
        }
    }
}

extension Interaction.Headers {
    /// These fields, with `name: value` added when there is no field of that name yet.
    func adding(_ name: String, _ value: String) -> Interaction.Headers {
        var copy = self
        if !copy.contains(name) { copy.add(name, value) }
        return copy
    }
}
