import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension Interaction.Request {
    /// The request as the caller built it: method, URL, header fields (sorted by name, so that
    /// recordings are deterministic) and body, read from `httpBody` or, when that is empty, from
    /// `httpBodyStream` (where Apple platforms usually put it). The ``SessionExecutor`` puts the body it
    /// found (``RequestBody``) into `httpBody` first, so a stream is read only for stubs' requests.
    ///
    /// Returns the body it read so that the request can be sent on without reading a stream twice.
    /// The body's written form is left as base64: choosing the readable form parses JSON, which
    /// only a recording needs (``withReadableBody()``), not the replay of every request.
    static func capturing(_ request: URLRequest) -> (request: Interaction.Request, body: Data?) {
        var body = request.httpBody
        if body == nil, let stream = request.httpBodyStream {
            body = try? InputStreamReader.readAll(stream)
        }
        var headers = Interaction.Headers()
        for (name, value) in (request.allHTTPHeaderFields ?? [:]).sorted(by: { $0.key.lowercased() < $1.key.lowercased() }) {
            headers.add(name, value)
        }
        let captured = Interaction.Request(
            method: request.httpMethod ?? "GET",
            url: request.url?.absoluteString ?? "",
            headers: headers,
            body: body.map { Interaction.Body(unchecked: $0, form: .base64) } ?? .empty
        )
        return (captured, body)
    }

    /// The same request with its body in the form a cassette writes best (`json`, `text` or `base64`).
    func withReadableBody() -> Interaction.Request {
        var copy = self
        copy.body = Interaction.Body(body.data, contentType: headers["Content-Type"])
        return copy
    }
}

/// Reads an `InputStream` to its end.
enum InputStreamReader {
    /// A read failed: the stream was already read or closed, or its source failed.
    struct ReadError: Error, CustomStringConvertible {
        let description: String

        init(stream: InputStream) {
            #if canImport(FoundationNetworking)
            // FoundationNetworking's streamError traps; the status is all it can say safely.
            let status = stream.streamStatus
            description =
                status == .closed || status == .atEnd
                ? "the stream was already read to its end or closed (a stream can be sent once; give each request its own)"
                : "the stream failed to read (status \(status.rawValue))"
            #else
            description = stream.streamError.map { "the stream failed to read: \($0.localizedDescription)" } ?? "the stream failed to read"
            #endif
        }
    }

    /// The stream's bytes; throws the stream's error when a read fails, so that a body that
    /// could not be read is never taken for a shorter one.
    static func readAll(_ stream: InputStream) throws -> Data {
        var data = Data()
        stream.open()
        defer { stream.close() }
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = stream.read(&buffer, maxLength: buffer.count)
            if count < 0 { throw ReadError(stream: stream) }
            if count == 0 { break }
            data.append(buffer, count: count)
        }
        return data
    }
}

extension Interaction.Response {
    /// A response as the caller received it: status, header fields sorted by name, body, and the
    /// final URL when redirects were followed.
    init(_ response: HTTPURLResponse, body: Data, requestURL: String) {
        var headers = Interaction.Headers()
        let fields = response.allHeaderFields.compactMap { key, value -> (String, String)? in
            guard let name = key as? String else { return nil }
            return (name, "\(value)")
        }
        for (name, value) in fields.sorted(by: { $0.0.lowercased() < $1.0.lowercased() }) {
            headers.add(name, value)
        }
        let finalURL = response.url?.absoluteString
        self.init(
            status: response.statusCode,
            url: finalURL == requestURL ? nil : finalURL,
            headers: headers,
            body: Interaction.Body(body, contentType: headers["Content-Type"])
        )
    }

    /// The `HTTPURLResponse` a caller receives when this response is replayed for `requestURL`.
    /// Repeated header fields are joined with ", ", as URLSession delivers them live.
    func urlResponse(for requestURL: URL) -> HTTPURLResponse? {
        var fields: [String: String] = [:]
        fields.reserveCapacity(headers.fields.count)
        for field in headers.fields {
            fields[field.name] = field.values.count == 1 ? field.values[0] : field.values.joined(separator: ", ")
        }
        let responseURL = url.flatMap(URL.init(string:)) ?? requestURL
        return HTTPURLResponse(url: responseURL, statusCode: status, httpVersion: "HTTP/1.1", headerFields: fields)
    }
}
