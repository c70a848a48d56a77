import Foundation

extension RequestDifference {
    /// A place in the request message of a Connect or gRPC-Web call: which message of a stream,
    /// and which field, by number, from the outermost message inward.
    ///
    /// A difference inside a message keeps ``RequestDifference/field`` as
    /// ``RequestDifference/Field/body`` and says where in ``RequestDifference/messageField``:
    ///
    /// ```text
    /// message field 2.1: recorded "Ada", requested "Grace"     // field 1 of the message in field 2
    /// message field 3[1]: recorded 7, requested 8               // the second of a repeated field 3
    /// messages[1] field 1: recorded "a", requested nothing      // field 1 of a stream's second message
    /// messages[2]: recorded nothing, requested message (4 bytes) // one stream has a message more
    /// ```
    public struct MessageField: Hashable, Sendable, CustomStringConvertible {
        /// The message's place in a stream of messages (gRPC-Web, streaming Connect), from 0; nil
        /// for a body that is one message (unary Connect, a Connect GET's `message`).
        public var message: Int?
        /// The field, from the outermost message inward; empty for a whole message.
        public var path: [Step]

        /// One field number on the way to a field.
        public struct Step: Hashable, Sendable, CustomStringConvertible {
            /// The field's number in its message.
            public var number: Int
            /// Which occurrence of a field that occurs more than once (a repeated field), from 0;
            /// nil when it occurs once in both messages.
            public var occurrence: Int?

            /// `2`, or `3[1]` for an occurrence.
            public var description: String { occurrence.map { "\(number)[\($0)]" } ?? "\(number)" }
        }

        /// `message field 2.1`, `messages[1] field 1`, `messages[2]`.
        public var description: String {
            let fieldName = path.map(\.description).joined(separator: ".")
            guard let message else { return path.isEmpty ? "message" : "message field \(fieldName)" }
            return path.isEmpty ? "messages[\(message)]" : "messages[\(message)] field \(fieldName)"
        }

        /// A place from its parts (to compare with a report's in a test).
        package init(message: Int?, path: [Step]) {
            self.message = message
            self.path = path
        }
    }
}

extension RequestDifference.MessageField.Step {
    package init(_ number: Int, occurrence: Int? = nil) {
        self.number = number
        self.occurrence = occurrence
    }
}

/// Where two Connect or gRPC-Web request messages differ, field by field: what the miss report
/// lists for a call whose message changed.
enum MessageDifferences {
    /// The differences between two unary messages.
    static func between(_ was: [ProtobufWire.Field], _ now: [ProtobufWire.Field]) -> [RequestDifference] {
        var found: [RequestDifference] = []
        fields(was, now, at: .init(message: nil, path: []), into: &found)
        return found
    }

    /// The differences between two bodies of envelopes, envelope by envelope: fields of two
    /// protobuf messages, or the whole message when they are not both protobuf (or their flags differ).
    static func between(_ was: RPCEnvelope.Framed, _ now: RPCEnvelope.Framed) -> [RequestDifference] {
        var found: [RequestDifference] = []
        for index in 0..<max(was.envelopes.count, now.envelopes.count) {
            let a = index < was.envelopes.count ? was.envelopes[index] : nil
            let b = index < now.envelopes.count ? now.envelopes[index] : nil
            guard a != b else { continue }
            let place = RequestDifference.MessageField(message: index, path: [])
            if let a, let b, a.flags == b.flags, case .proto(let x) = a.content, case .proto(let y) = b.content {
                fields(x, y, at: place, into: &found)
            } else {
                found.append(RequestDifference(field: .body, recorded: a.map(shown), requested: b.map(shown), messageField: place))
            }
        }
        if was.rest != now.rest {
            found.append(RequestDifference(field: .body, recorded: cut(was.rest), requested: cut(now.rest)))
        }
        return found
    }

    /// Field numbers in first-appearance order (recorded first); the occurrences of a number
    /// compared in order, nested messages field by field.
    private static func fields(
        _ was: [ProtobufWire.Field], _ now: [ProtobufWire.Field], at place: RequestDifference.MessageField,
        into found: inout [RequestDifference]
    ) {
        var numbers: [Int] = []
        for field in was + now where !numbers.contains(field.number) { numbers.append(field.number) }
        for number in numbers {
            let a = was.filter { $0.number == number }.map(\.value)
            let b = now.filter { $0.number == number }.map(\.value)
            let repeated = max(a.count, b.count) > 1
            for index in 0..<max(a.count, b.count) {
                let x = index < a.count ? a[index] : nil
                let y = index < b.count ? b[index] : nil
                guard x != y else { continue }
                var inner = place
                inner.path.append(.init(number, occurrence: repeated ? index : nil))
                if case .delimited(.message(let xs))? = x, case .delimited(.message(let ys))? = y {
                    fields(xs, ys, at: inner, into: &found)
                } else {
                    found.append(RequestDifference(field: .body, recorded: x.map(shown), requested: y.map(shown), messageField: inner))
                }
            }
        }
    }

    /// `150`, `"Ada"`, `message (4 bytes)`, `3 bytes 0a0b0c`.
    private static func shown(_ value: ProtobufWire.Value) -> String {
        switch value {
        case .varint(let number), .fixed64(let number): return String(number)
        case .fixed32(let number): return String(number)
        case .delimited(.text(let text)): return RequestDifference.quoted(text)
        case .delimited(.message(let fields)): return "message (\(ProtobufWire.encode(fields).count) bytes)"
        case .delimited(.bytes(let data)): return bytes(data)
        }
    }

    /// An envelope as a whole: its flags when not 0, and what its payload holds.
    private static func shown(_ envelope: RPCEnvelope) -> String {
        let payload: String
        switch envelope.content {
        case .proto: payload = "message (\(envelope.payload.count) bytes)"
        case .json(let value), .endStream(let value):
            payload = RequestDifference.quoted(String(decoding: JSONWriter.compact(value), as: UTF8.self))
        case .trailers(let lines): payload = "trailers " + RequestDifference.quoted(lines.joined(separator: ", "))
        case .text(let text): payload = RequestDifference.quoted(text)
        case .bytes(let data): payload = bytes(data)
        }
        return envelope.flags == 0 ? payload : "flags \(envelope.flags), \(payload)"
    }

    /// `3 bytes 0a0b0c`: the first 16 in hexadecimal.
    private static func bytes(_ data: Data) -> String {
        let hex = data.prefix(16).map { String($0, radix: 16).leftPadded(to: 2) }.joined()
        return "\(data.count) bytes" + (data.isEmpty ? "" : " \(hex)\(data.count > 16 ? "…" : "")")
    }

    private static func cut(_ rest: Data) -> String? {
        rest.isEmpty ? nil : "\(rest.count) bytes of a cut message"
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
