import Foundation

/// A small client of `text/event-stream` bodies, as a browser's `EventSource` reads them (WHATWG
/// HTML, "Parsing an event stream"): lines end in CR, LF or CRLF; `field: value` lines fill an
/// event; a blank line dispatches it; a line starting with `:` is a comment. Written for the
/// tests from the specification, so that a replayed stream is read by a parser Cassette does not use.
public struct EventStreamClient {
    /// A dispatched event.
    public struct Event: Sendable, Equatable {
        /// `message` when the stream gave no `event:`.
        public var type: String
        public var data: String
        public var lastEventID: String
        /// Seconds from the start of the request to the piece that completed it (0 when unknown).
        public var at: TimeInterval
    }

    private var line: [UInt8] = []
    private var pendingCR = false
    private var type = ""
    private var data = ""
    private var hasData = false
    private var lastEventID = ""
    private var now: TimeInterval = 0
    /// The events dispatched so far.
    public private(set) var events: [Event] = []

    public init() {}

    /// Reads `bytes` that arrived `at` seconds into the request.
    public mutating func feed(_ bytes: Data, at: TimeInterval = 0) {
        now = at
        for byte in bytes {
            if pendingCR {
                pendingCR = false
                if byte == 0x0A { continue }
            }
            switch byte {
            case 0x0D:
                pendingCR = true
                endLine()
            case 0x0A:
                endLine()
            default:
                line.append(byte)
            }
        }
    }

    /// The events of a body a delegate received piece by piece (``Fetched/pieces``, ``Fetched/pieceTimes``).
    public static func events(of fetched: Fetched) -> [Event] {
        var client = EventStreamClient()
        var start = fetched.body.startIndex
        if fetched.pieces.isEmpty { client.feed(fetched.body) }
        for (size, at) in zip(fetched.pieces, fetched.pieceTimes) {
            client.feed(fetched.body[start..<(start + size)], at: at)
            start += size
        }
        return client.events
    }

    private mutating func endLine() {
        defer { line.removeAll(keepingCapacity: true) }
        guard !line.isEmpty else { return dispatch() }
        if line.first == UInt8(ascii: ":") { return }
        let text = String(decoding: line, as: UTF8.self)
        let name: Substring
        var value: Substring
        if let colon = text.firstIndex(of: ":") {
            name = text[..<colon]
            value = text[text.index(after: colon)...]
            if value.first == " " { value = value.dropFirst() }
        } else {
            name = Substring(text)
            value = ""
        }
        switch name {
        case "event": type = String(value)
        case "data":
            data += (hasData ? "\n" : "") + value
            hasData = true
        case "id" where !value.contains("\0"): lastEventID = String(value)
        default: break
        }
    }

    private mutating func dispatch() {
        defer {
            type = ""
            data = ""
            hasData = false
        }
        guard hasData else { return }
        events.append(Event(type: type.isEmpty ? "message" : type, data: data, lastEventID: lastEventID, at: now))
    }
}
