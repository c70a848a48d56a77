import Foundation

/// One server-sent event of a `text/event-stream` body, its lines in the order they were written.
///
/// A JSON cassette shows a streamed `text/event-stream` response event by event, each with the
/// moment it arrived (``Interaction/StreamedBody``):
///
/// ```json
/// "stream": { "events": [
///   { "at": 0.21, "data": { "choices": [ { "delta": { "content": "Hel" } } ] } },
///   { "at": 0.25, "event": "ping", "id": "7", "data": "still here" },
///   { "at": 0.31, "data": "[DONE]" }
/// ] }
/// ```
///
/// An event stands for exactly the bytes `serialized()` gives: one line per field,
/// `name: value` (`name:` alone for an empty value), a `data` holding line breaks written as one
/// `data:` line per line, lines ended by `\n`, and a blank line after the last. A chunk of a stream
/// that is not exactly one event in that layout (`data:x` without the space, `\r\n` line ends, a
/// field the format ignores, half an event) is shown as text instead, so no byte ever changes.
///
/// ```swift
/// let event = ServerSentEvent(event: "update", id: "3", data: "{\"n\":3}")
/// String(decoding: event.serialized(), as: UTF8.self)  // "event: update\nid: 3\ndata: {\"n\":3}\n\n"
/// ```
public struct ServerSentEvent: Sendable, Equatable, CustomStringConvertible {
    /// One field of an event, a line (or, for `data`, consecutive lines) of the stream.
    package enum Field: Sendable, Equatable {
        /// `event: NAME`, the event's type.
        case event(String)
        /// `data: TEXT`; a text with line breaks is one `data:` line per line.
        case data(String)
        /// `id: TEXT`, the last event ID a client sends when it reconnects.
        case id(String)
        /// `retry: MILLISECONDS`, the reconnection time.
        case retry(Int)
        /// `: TEXT`, a comment (servers send them to keep a connection open).
        case comment(String)

        /// The field's name in the stream and in a JSON cassette.
        package var name: String {
            switch self {
            case .event: return "event"
            case .data: return "data"
            case .id: return "id"
            case .retry: return "retry"
            case .comment: return "comment"
            }
        }
    }

    /// The fields, in the order they are written.
    package var fields: [Field]

    /// An event from its fields, in the order they are written.
    package init(fields: [Field]) {
        self.fields = fields
    }

    /// An event with these fields, written in this order: `event`, `id`, `retry`, `data`.
    public init(event: String? = nil, id: String? = nil, retry: Int? = nil, data: String?) {
        var fields: [Field] = []
        if let event { fields.append(.event(event)) }
        if let id { fields.append(.id(id)) }
        if let retry { fields.append(.retry(retry)) }
        if let data { fields.append(.data(data)) }
        self.init(fields: fields)
    }

    /// The event's type (`event:`), nil when it has none (a client dispatches it as `message`).
    public var event: String? {
        for case .event(let name) in fields.reversed() { return name }
        return nil
    }

    /// The event's data: its `data:` lines joined by line breaks; nil when it has none.
    public var data: String? {
        let lines = fields.compactMap { field -> String? in
            if case .data(let text) = field { return text }
            return nil
        }
        return lines.isEmpty ? nil : lines.joined(separator: "\n")
    }

    /// The event's `id:`, nil when it has none.
    public var id: String? {
        for case .id(let id) in fields.reversed() { return id }
        return nil
    }

    /// The event's `retry:` in milliseconds, nil when it has none.
    public var retry: Int? {
        for case .retry(let milliseconds) in fields.reversed() { return milliseconds }
        return nil
    }

    /// The event as it goes on the wire, blank line included.
    package func serialized() -> Data {
        var out = Data()
        func line(_ name: String, _ value: String) {
            out.append(contentsOf: name.utf8)
            out.append(UInt8(ascii: ":"))
            if !value.isEmpty {
                out.append(UInt8(ascii: " "))
                out.append(contentsOf: value.utf8)
            }
            out.append(0x0A)
        }
        for field in fields {
            switch field {
            case .event(let name): line("event", name)
            case .id(let id): line("id", id)
            case .retry(let milliseconds): line("retry", String(milliseconds))
            case .comment(let text): line("", text)
            case .data(let text):
                for piece in text.split(separator: "\n", omittingEmptySubsequences: false) { line("data", String(piece)) }
            }
        }
        out.append(0x0A)
        return out
    }

    /// The event as the stream carries it (`event:`, `id:`, `data:` lines, then a blank line).
    public var description: String { String(decoding: serialized(), as: UTF8.self) }

    /// Why this event cannot be written as it is, or nil: no fields, a line break in a field that
    /// is one line (`event`, `id`, a comment), a carriage return in `data`, a negative `retry`, a
    /// name given twice (a JSON object has each key once; several `data:` lines are one `data`).
    package var problem: String? { firstProblem?.message }

    /// `problem` with the field it is about (nil for the event as a whole).
    package var firstProblem: (field: String?, message: String)? {
        guard !fields.isEmpty else {
            return (nil, "an event needs at least one field (\"data\", \"event\", \"id\", \"retry\" or \"comment\")")
        }
        var seen: Set<String> = []
        for field in fields {
            let name = field.name
            guard seen.insert(name).inserted else {
                return (
                    name, "an event has each field once, found \"\(name)\" twice (several data lines are one \"data\" holding line breaks)"
                )
            }
            switch field {
            case .event(let text), .id(let text), .comment(let text):
                if text.utf8.contains(where: { $0 == 0x0A || $0 == 0x0D }) {
                    return (name, "\"\(name)\" is one line of the stream: it cannot hold a line break")
                }
                if case .id = field, text.utf8.contains(0) {
                    return (name, "an event's \"id\" cannot hold NUL (clients ignore such an id)")
                }
            case .data(let text):
                if text.utf8.contains(0x0D) {
                    return (
                        name,
                        "\"data\" cannot hold a carriage return: the stream would read it as a line end; write its chunk as \"text\" instead"
                    )
                }
            case .retry(let milliseconds):
                if milliseconds < 0 { return (name, "\"retry\" is a number of milliseconds, zero or more, found \(milliseconds)") }
            }
        }
        return nil
    }

    // MARK: Reading

    /// `bytes` as one event in the layout `serialized()` writes, or nil when they are anything
    /// else: then only the bytes themselves say exactly what was sent.
    package static func canonical(_ bytes: Data) -> ServerSentEvent? {
        guard bytes.count >= 3, bytes.last == 0x0A, !bytes.contains(0x0D), UTF8Validation.isValid(bytes) else { return nil }
        let text = String(decoding: bytes, as: UTF8.self)
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        // "…\n\n" splits into its lines, "" and "".
        guard lines.count >= 3, lines.removeLast().isEmpty, lines.removeLast().isEmpty else { return nil }
        var fields: [Field] = []
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { return nil }
            let name = line[..<colon]
            var value = line[line.index(after: colon)...]
            if value.first == " " { value = value.dropFirst() }
            let text = String(value)
            switch name {
            case "": fields.append(.comment(text))
            case "event": fields.append(.event(text))
            case "id": fields.append(.id(text))
            case "retry":
                guard let milliseconds = Int(text), milliseconds >= 0 else { return nil }
                fields.append(.retry(milliseconds))
            case "data":
                if case .data(let previous)? = fields.last {
                    fields[fields.count - 1] = .data(previous + "\n" + text)
                } else {
                    fields.append(.data(text))
                }
            default:
                return nil
            }
        }
        let event = ServerSentEvent(fields: fields)
        guard event.problem == nil, event.serialized() == bytes else { return nil }
        return event
    }

    /// The offsets just past each blank line of `bytes`, where an event of a stream ends: a
    /// client dispatches an event when it reads that blank line. Lines end in `\n`, `\r\n` or `\r`.
    package static func eventEnds(in bytes: Data) -> [Int] {
        var ends: [Int] = []
        var lineIsEmpty = true
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            if byte == 0x0A || byte == 0x0D {
                var next = bytes.index(after: index)
                if byte == 0x0D, next < bytes.endIndex, bytes[next] == 0x0A { next = bytes.index(after: next) }
                if lineIsEmpty { ends.append(next - bytes.startIndex) }
                lineIsEmpty = true
                index = next
            } else {
                lineIsEmpty = false
                index = bytes.index(after: index)
            }
        }
        // Blank lines before the first event and runs of blank lines do not end events of their own.
        var previous = 0
        return ends.filter { end in
            defer { previous = end }
            return !Self.isBlank(bytes[(bytes.startIndex + previous)..<(bytes.startIndex + end)])
        }
    }

    private static func isBlank(_ bytes: Data) -> Bool {
        bytes.allSatisfy { $0 == 0x0A || $0 == 0x0D }
    }
}
