import Cassette
import Foundation

/// A cassette file's bytes with one interaction replaced. In a JSON cassette only that
/// interaction's bytes change, written as the encoder writes an interaction, so every other byte
/// stays as written (member order, spacing, hand-made layout); `.http` and HAR cassettes are
/// written whole, in their canonical form. The result is read back before it is handed over: what
/// cannot be read back as the document intended is an error, and nothing is written.
struct InteractionReplacement {
    /// The file's bytes after the replacement.
    var data: Data
    /// The replaced interaction as it was in the file, and as it is now, each from the start of
    /// its first line (for a dry run).
    var before: String
    var after: String

    /// - Parameters:
    ///   - data: the cassette's bytes, in `format`.
    ///   - document: `data` as read.
    ///   - index: which interaction is replaced.
    ///   - interaction: what replaces it.
    ///   - target: the format the result is written in (a copy may take another extension).
    static func make(
        data: Data, format: CassetteFormat, document: CassetteDocument, index: Int, with interaction: Interaction,
        in target: CassetteFormat, file: String
    ) throws(CassetteFormatError) -> InteractionReplacement {
        var changed = document
        changed.interactions[index] = interaction
        // Named as a save names them, so that a fault keeps the field names the file shows.
        let names = DescriptorSets.names(for: CassetteDocument(interactions: [interaction]), writtenTo: URL(fileURLWithPath: file))
        let after = String(decoding: try JSONCassetteCodec.encodedInteraction(interaction, names: names), as: UTF8.self)
        var replacement: InteractionReplacement
        if format == .json, target == .json, let span = try span(of: index, in: data, file: file) {
            var bytes = [UInt8](data)
            // The white space before the interaction on its line, so both read as they stand in the file.
            let lineStart = bytes[..<span.lowerBound].lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? 0
            let indentation =
                bytes[lineStart..<span.lowerBound].allSatisfy { $0 == 0x20 || $0 == 0x09 } ? bytes[lineStart..<span.lowerBound] : []
            let before = String(decoding: indentation + bytes[span], as: UTF8.self)
            bytes.replaceSubrange(span, with: Array(after.utf8))
            replacement = InteractionReplacement(
                data: Data(bytes), before: before, after: String(decoding: indentation, as: UTF8.self) + after)
        } else {
            let before = String(decoding: try JSONCassetteCodec.encodedInteraction(document.interactions[index]), as: UTF8.self)
            replacement = InteractionReplacement(data: try target.encode(changed), before: "    " + before, after: "    " + after)
        }
        let reread = try target.decode(replacement.data, file: file)
        guard reread.interactions == changed.interactions else {
            throw CassetteFormatError(
                file: file,
                problems: [.init(path: nil, message: "the changed cassette would not read back as intended; nothing was written")])
        }
        return replacement
    }

    /// The bytes of interaction `index` of a JSON cassette: from its `{` to its `}`.
    private static func span(of index: Int, in data: Data, file: String) throws(CassetteFormatError) -> Range<Int>? {
        let root = try JSONCassetteCodec.parse(data, file: file)
        guard case .array(let elements) = root.memberValue("interactions")?.value, elements.indices.contains(index) else { return nil }
        let start = elements[index].offset
        guard let end = try? JSONParser.end(ofValueAt: start, in: data) else { return nil }
        return start..<end
    }
}
