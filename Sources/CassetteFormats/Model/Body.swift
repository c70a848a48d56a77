import Foundation

extension Interaction {
    /// A message body: its exact bytes, and the form a cassette file writes them in.
    ///
    /// The bytes are the truth; the form only decides how they look in the file:
    ///
    /// | form | in the file | chosen for |
    /// | --- | --- | --- |
    /// | JSON | `{ "json": { "id": 42 } }` | compact JSON (`{"id":42}`) of a JSON media type, or of no media type when it is an object or array |
    /// | text | `{ "text": "hello" }` | other UTF-8 without control characters (tab, CR and LF allowed) |
    /// | multipart | `{ "multipart": { "boundary": "…", "parts": [ { "name": "title", "text": "Hi" } ] } }` | `multipart/form-data` in the layout clients send |
    /// | protobuf | `{ "proto": [ { "field": 1, "varint": 150 } ] }` | unary Connect's `application/proto` that reads as a protobuf message |
    /// | envelopes | `{ "envelopes": [ { "proto": […] }, { "trailers": ["grpc-status: 0"] } ] }` | Connect streams and gRPC-Web bodies (`application/connect+proto`, `application/grpc-web`, …) |
    /// | base64 | `{ "base64": "iVBORw0K…" }` | everything else, and binary media types (`image/*`, `application/octet-stream`, …) |
    ///
    /// Inline JSON stands for its compact serialization, keys in the order written and numbers as
    /// written. So only a body that *is* compact JSON is written that way, and reading the file
    /// back gives the same bytes. Pretty-printed JSON from a server is kept as text.
    ///
    /// Two bodies are equal when their bytes are equal, whatever their forms.
    public struct Body: Sendable, Hashable, CustomStringConvertible {
        /// How a body is written in a cassette file.
        package enum Form: String, Sendable, Hashable, CaseIterable {
            /// UTF-8 text, as a JSON string (or an array of lines).
            case text
            /// Compact JSON, inlined as JSON.
            case json
            /// Any bytes, base64-encoded.
            case base64
            /// A `multipart/form-data` body, part by part, each part in its own form.
            case multipart
            /// One protobuf message, field by field.
            case protobuf
            /// Connect or gRPC-Web envelopes, message by message.
            case envelopes
        }

        /// The exact bytes.
        public let data: Data
        /// How the bytes are written in a cassette file: the form given or chosen when the body was
        /// made, or, for a body a reader made (``init(read:contentType:)``), the most readable one,
        /// chosen when a writer asks (a replay never does, so a body read to be replayed is never
        /// parsed to see whether it is compact JSON).
        package var form: Form { chosen ?? Self.bestForm(for: data, contentType: contentType) }
        /// The form given, or nil for the best one.
        private let chosen: Form?
        /// The `Content-Type` the best form depends on, when none was given.
        private let contentType: String?

        /// No bytes.
        public static let empty = Body(unchecked: Data(), form: .text)

        /// A body holding `data`, written in the most readable form that keeps its bytes exact.
        ///
        /// - Parameter data: the bytes, exactly as they go on the wire.
        /// - Parameter contentType: the message's `Content-Type`, if any. A JSON media type
        ///   (`application/json`, `…+json`) lets compact JSON scalars be written inline too; a binary
        ///   media type (`image/png`) is always written as base64.
        public init(_ data: Data, contentType: String? = nil) {
            self.init(unchecked: data, form: Self.bestForm(for: data, contentType: contentType))
        }

        /// A body a reader found in a cassette file, written in the most readable form when it is
        /// written again: the form is chosen then, not now.
        package init(read data: Data, contentType: String?) {
            self.data = data
            chosen = nil
            self.contentType = contentType
        }

        /// A UTF-8 text body.
        public init(text: String) {
            let data = Data(text.utf8)
            self.init(unchecked: data, form: Self.isWritableAsText(data) ? .text : .base64)
        }

        /// The same bytes written as `form`, or nil when `form` cannot hold them exactly
        /// (`.text` needs valid UTF-8 without control characters, `.json` needs compact JSON,
        /// `.multipart` a multipart body in the canonical layout of ``Multipart/serialized()``).
        package func written(as form: Form) -> Body? {
            switch form {
            case .base64: break
            case .text: guard Self.isWritableAsText(data) else { return nil }
            case .json: guard Self.isCompactJSON(data) else { return nil }
            case .multipart: guard Multipart.canonical(data, contentType: nil) != nil else { return nil }
            case .protobuf: guard RPCFraming.message.reads(data) else { return nil }
            case .envelopes: guard RPCFraming.envelopes.reads(data) else { return nil }
            }
            return Body(unchecked: data, form: form)
        }

        /// The same bytes, written in the cassette file as base64 whatever they are: for a body a
        /// reviewer should not read or edit (a signed payload, text in a legacy encoding), or
        /// one whose exact bytes matter more than its look.
        ///
        /// ```swift
        /// let response = Interaction.Response(status: 200, body: Interaction.Body(payload).writtenAsBase64)
        /// ```
        public var writtenAsBase64: Body { Body(unchecked: data, form: .base64) }

        package init(unchecked data: Data, form: Form) {
            self.data = data
            chosen = form
            contentType = nil
        }

        /// Whether there are no bytes.
        public var isEmpty: Bool { data.isEmpty }

        /// The bytes as a string, when they are valid UTF-8.
        public var text: String? { UTF8Validation.isValid(data) ? String(decoding: data, as: UTF8.self) : nil }

        /// Bodies are equal when their bytes are, whatever form they are written in.
        public static func == (lhs: Body, rhs: Body) -> Bool { lhs.data == rhs.data }

        /// Hashes the bytes, as `==` compares them.
        public func hash(into hasher: inout Hasher) { hasher.combine(data) }

        /// The body as a report shows it: text as text, other forms by their size.
        public var description: String {
            switch form {
            case .text, .json, .multipart: return text ?? "\(data.count) bytes"
            case .base64, .protobuf, .envelopes: return "\(data.count) bytes"
            }
        }

        // MARK: Choosing a form

        static func bestForm(for data: Data, contentType: String?) -> Form {
            if data.isEmpty { return .text }
            let mediaType = contentType.map(Self.mediaType(of:))
            if let mediaType, Self.isBinaryMediaType(mediaType) { return .base64 }
            if mediaType == "multipart/form-data", Multipart.canonical(data, contentType: contentType) != nil { return .multipart }
            if let mediaType, let framing = RPCFraming(mediaType: mediaType), framing.reads(data) {
                return framing == .message ? .protobuf : .envelopes
            }
            let looksLikeJSON: Bool
            if let mediaType {
                looksLikeJSON = Self.isJSONMediaType(mediaType)
            } else {
                looksLikeJSON = data.first == UInt8(ascii: "{") || data.first == UInt8(ascii: "[")
            }
            if looksLikeJSON, isCompactJSON(data) { return .json }
            return isWritableAsText(data) ? .text : .base64
        }

        /// Valid UTF-8 with no control characters but tab, line feed and carriage return.
        static func isWritableAsText(_ data: Data) -> Bool {
            // Read in place: iterating a `Data` calls into Foundation for each byte on Linux.
            let hasControl = data.withUnsafeBytes { bytes in bytes.contains { $0 < 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D } }
            return !hasControl && UTF8Validation.isValid(data)
        }

        /// Whether `data` is exactly the compact serialization of the JSON it holds, with no
        /// duplicate keys: only then does an inline `"json"` body give back the same bytes.
        static func isCompactJSON(_ data: Data) -> Bool {
            guard let node = try? JSONParser.parse(data), node.value.firstDuplicateKey() == nil else { return false }
            return data.holds(exactly: JSONWriter.compact(node.value))
        }

        /// `application/json` from `Application/JSON; charset=utf-8`.
        package static func mediaType(of contentType: String) -> String {
            // Nearly every Content-Type is ASCII: read as bytes, without Foundation's trimming,
            // which cost more than the rest of recording a response's body (CassetteBench).
            var contiguous = contentType
            // nil: not ASCII, left to Foundation below. (`withUTF8` copies only a bridged string.)
            let ascii = contiguous.withUTF8 { bytes -> String? in
                func isBlank(_ byte: UInt8) -> Bool { byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
                var end = bytes.firstIndex(of: UInt8(ascii: ";")) ?? bytes.count
                var start = 0
                while start < end, isBlank(bytes[start]) { start += 1 }
                while end > start, isBlank(bytes[end - 1]) { end -= 1 }
                var isLowerCase = true
                for byte in bytes[start..<end] {
                    if byte >= 0x80 { return nil }
                    if (0x41...0x5A).contains(byte) { isLowerCase = false }
                }
                if isLowerCase, start == 0, end == bytes.count { return contentType }
                return String(decoding: bytes[start..<end].lazy.map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 }, as: UTF8.self)
            }
            if let ascii { return ascii }
            let essence = contentType.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            return essence.trimmingCharacters(in: .whitespaces).lowercased()
        }

        package static func isJSONMediaType(_ mediaType: String) -> Bool {
            mediaType == "application/json" || mediaType == "text/json" || mediaType.hasSuffix("+json")
        }

        static func isBinaryMediaType(_ mediaType: String) -> Bool {
            for prefix in ["image/", "audio/", "video/", "font/"] where mediaType.hasPrefix(prefix) {
                return mediaType != "image/svg+xml"
            }
            return [
                "application/octet-stream", "application/zip", "application/gzip", "application/pdf",
                "application/protobuf", "application/x-protobuf", "application/wasm",
            ].contains(mediaType)
        }
    }
}
