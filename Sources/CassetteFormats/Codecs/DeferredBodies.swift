import Foundation

/// The large bodies of a stored JSON cassette left unread in its file, for comparing it with a new
/// recording (record mode `all`) without holding the old and the new body in memory at once.
///
/// A reader that defers bodies (``JSONCassetteCodec/decode(_:file:release:deferringBodiesFrom:)``)
/// puts a *placeholder* in the document for each `text` or `base64` body written as one string of
/// at least ``minimum`` bytes (and at least ``JSONCassetteCodec/longString``, below which the
/// parser copies strings anyway): a body whose bytes are a marker no recorded body has, and which
/// says which bytes of the file hold the real one. ``placeholder(equalTo:)`` then finds, for a newly
/// recorded body, the placeholder of a stored body with exactly its bytes, comparing a few
/// megabytes at a time against the file and giving those pages back, so that two documents
/// compared with `==` are equal exactly when they would be with every body read. What was kept
/// of the stored document gets its bytes back from the recording with ``restored(_:from:)``.
package struct DeferredBodies: Sendable {
    /// Where a deferred body's bytes are, and how the file wrote them.
    private struct Entry: Sendable {
        var source: JSONLongString
        var form: Interaction.Body.Form
        /// How many bytes the body holds (for base64, what the text decodes to).
        var size: Int
    }

    /// Bodies of fewer bytes of file than this are read as usual.
    package let minimum: Int
    /// Starts every placeholder: a NUL and a UUID, which no body a server sent will start with.
    private let marker: Data
    private var entries: [Data: Entry] = [:]

    /// Nothing deferred yet; bodies of `minimum` bytes of file or more will be.
    package init(minimum: Int) {
        self.minimum = max(1, minimum)
        marker = Data("\u{0}cassette-deferred-body-\(UUID().uuidString)-".utf8)
    }

    /// Whether no body was deferred.
    package var isEmpty: Bool { entries.isEmpty }

    /// The placeholder for a body written in `form` (`.text` or `.base64`) whose file bytes are
    /// `source`; nil when it is read as usual (too short, another form, or base64 that cannot be
    /// valid). Two bodies with the same bytes in the same form share a placeholder.
    mutating func placeholder(for source: JSONLongString, form: Interaction.Body.Form) -> Interaction.Body? {
        guard source.bytes.count >= minimum else { return nil }
        let size: Int
        switch form {
        case .text:
            size = source.bytes.count
        case .base64:
            guard source.bytes.count % 4 == 0 else { return nil }  // read as usual: the reader reports it
            let padding = source.bytes.suffix(2).reduce(0) { $0 + ($1 == UInt8(ascii: "=") ? 1 : 0) }
            size = source.bytes.count / 4 * 3 - padding
        case .json, .multipart, .protobuf, .envelopes:
            return nil
        }
        for (token, entry) in entries where entry.form == form && entry.size == size && entry.source.bytes == source.bytes {
            return Interaction.Body(unchecked: token, form: form)
        }
        let token = marker + Data(String(entries.count).utf8)
        entries[token] = Entry(source: source, form: form, size: size)
        return Interaction.Body(unchecked: token, form: form)
    }

    /// Whether `body` is a placeholder of these deferred bodies.
    package func isPlaceholder(_ body: Interaction.Body) -> Bool { entries[body.data] != nil }

    /// How many bytes `body` holds: the deferred body's size for a placeholder.
    package func size(of body: Interaction.Body) -> Int { entries[body.data]?.size ?? body.data.count }

    /// The placeholder of a deferred body with exactly the bytes of `body`, or nil when there is
    /// none. Compares against the file's bytes a few megabytes at a time, giving those back.
    package func placeholder(equalTo body: Interaction.Body) -> Interaction.Body? {
        guard body.data.count >= minimum / 2 else { return nil }  // base64 is 4/3 of the bytes
        for (token, entry) in entries where entry.size == body.data.count && Self.holds(entry, exactly: body.data) {
            return Interaction.Body(unchecked: token, form: entry.form)
        }
        return nil
    }

    /// `placeholder`'s real body, taken from `recorded`, which ``placeholder(equalTo:)`` found
    /// equal to it, in the form the file wrote it in; any other body as it is.
    package func restored(_ placeholder: Interaction.Body, from recorded: Interaction.Body) -> Interaction.Body {
        guard isPlaceholder(placeholder), !isPlaceholder(recorded) else { return placeholder }
        return Interaction.Body(unchecked: recorded.data, form: placeholder.form)
    }

    /// How many bytes of a body are compared at a time (768 KiB, 1 MiB of base64): what a
    /// comparison holds beyond the two bodies is one piece encoded and the file's pages of it,
    /// given back before the next (re-recording a 100 MB body over the same one: 9 MB more at the
    /// peak with 3 MiB pieces compared through a copy, 1–2 MB this way).
    private static let piece = 3 << 18

    /// Whether `entry`'s file bytes are `data` written in its form.
    private static func holds(_ entry: Entry, exactly data: Data) -> Bool {
        let source = entry.source
        var encoded: [UInt8] = []
        var start = 0
        while start < data.count {
            let end = min(start + piece, data.count)
            let same: Bool
            let fileRange: Range<Int>
            switch entry.form {
            case .base64:
                // 768 KiB of bytes are exactly 1 MiB of base64: each piece ends on a group of four.
                fileRange = (start / 3 * 4)..<min((end + 2) / 3 * 4, source.bytes.count)
                encoded.removeAll(keepingCapacity: true)
                data[(data.startIndex + start)..<(data.startIndex + end)].withUnsafeBytes { Base64.encode($0, to: &encoded) }
                same = fileRange.count == encoded.count && source.bytes[relative: fileRange].holds(exactly: encoded)
            default:
                fileRange = start..<end
                same = source.bytes[relative: fileRange] == data[(data.startIndex + start)..<(data.startIndex + end)]
            }
            source.release?((source.offset + fileRange.lowerBound)..<(source.offset + fileRange.upperBound))
            guard same else { return false }
            start = end
        }
        return true
    }
}

extension Data {
    /// The bytes at `range`, counted from this data's first byte (a slice keeps its parent's
    /// indices).
    fileprivate subscript(relative range: Range<Int>) -> Data {
        self[(startIndex + range.lowerBound)..<(startIndex + range.upperBound)]
    }
}
