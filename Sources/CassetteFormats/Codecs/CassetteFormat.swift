import Foundation

/// The file formats a cassette can be kept in, chosen by the file's extension wherever a cassette
/// is opened, recorded, linted or converted.
///
/// | extension | format |
/// | --- | --- |
/// | `.json` (and any other) | Cassette's JSON, the default |
/// | `.http` | raw HTTP messages |
/// | `.har` | HAR 1.2 |
///
/// ```swift
/// let format = CassetteFormat(path: "Cassettes/login.http")          // .httpMessages
/// let document = try format.decode(data, file: "Cassettes/login.http")
/// let har = try CassetteFormat.har.encode(document)
/// ```
public enum CassetteFormat: String, Sendable, CaseIterable, CustomStringConvertible {
    /// Cassette's JSON format (`.json`).
    case json
    /// Raw HTTP messages (`.http`).
    case httpMessages = "http"
    /// HAR 1.2 (`.har`).
    case har

    /// The format of a file with this extension (without the dot, any case), or nil for an
    /// extension that names none.
    package init?(fileExtension: some StringProtocol) {
        self.init(rawValue: fileExtension.lowercased())
    }

    /// The format of the file at `path`: by its extension, and JSON for any other extension.
    public init(path: String) {
        self = CassetteFormat(fileExtension: Self.pathExtension(of: path)) ?? .json
    }

    /// What `NSString.pathExtension` gives for `path` (after the last `.` of its last component,
    /// trailing slashes ignored; nothing for a name that starts with its only dot), without
    /// bridging: every tape asks it when it opens its cassette.
    package static func pathExtension(of path: String) -> Substring {
        var name = path[...]
        while name.count > 1, name.hasSuffix("/") { name.removeLast() }
        if let slash = name.lastIndex(of: "/") { name = name[name.index(after: slash)...] }
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "" }
        return name[name.index(after: dot)...]
    }

    /// The extension files of this format get, without the dot.
    public var fileExtension: String { rawValue }

    /// The extensions that name a format: `json`, `http`, `har`.
    package static var fileExtensions: [String] { allCases.map(\.fileExtension) }

    /// The format's name as messages write it: `JSON`, `HTTP messages`, `HAR`.
    public var description: String {
        switch self {
        case .json: return "JSON"
        case .httpMessages: return "HTTP messages"
        case .har: return "HAR"
        }
    }

    /// Decodes a cassette in this format.
    ///
    /// - Throws: ``CassetteFormatError`` naming `file` and every problem's place.
    public func decode(_ data: Data, file: String? = nil) throws(CassetteFormatError) -> CassetteDocument {
        switch self {
        case .json: return try JSONCassetteCodec.decode(data, file: file)
        case .httpMessages: return try HTTPMessageCassetteCodec.decode(data, file: file)
        case .har: return try HARCassetteCodec.decode(data, file: file)
        }
    }

    /// ``decode(_:file:)``, telling `release` which bytes of `data` it no longer needs (JSON
    /// cassettes; see ``JSONLongString/release``).
    package func decode(
        _ data: Data, file: String?, release: (@Sendable (Range<Int>) -> Void)?
    ) throws(CassetteFormatError) -> CassetteDocument {
        guard self == .json else { return try decode(data, file: file) }
        return try JSONCassetteCodec.decode(data, file: file, release: release)
    }

    /// ``decode(_:file:release:)`` leaving large bodies in `data` (JSON cassettes; the other
    /// formats read every body): see ``DeferredBodies``.
    package func decode(
        _ data: Data, file: String?, release: (@Sendable (Range<Int>) -> Void)?,
        deferringBodiesFrom minimum: Int
    ) throws(CassetteFormatError) -> (document: CassetteDocument, deferred: DeferredBodies) {
        guard self == .json else { return (try decode(data, file: file), DeferredBodies(minimum: minimum)) }
        return try JSONCassetteCodec.decode(data, file: file, release: release, deferringBodiesFrom: minimum)
    }

    /// ``encode(_:)``'s bytes handed to `sink` in pieces (JSON: about `pieceSize` bytes each, as
    /// they are written; the other formats: whole), for saving large cassettes. Nothing reaches
    /// `sink` when the document cannot be written.
    ///
    /// - Parameter names: names the fields of protobuf messages (JSON only: the other formats
    ///   keep those bodies as bytes).
    package func encode(
        _ document: CassetteDocument, inPiecesOf pieceSize: Int, names: ProtobufSchema? = nil,
        to sink: @escaping (ArraySlice<UInt8>) -> Void
    ) throws(CassetteFormatError) {
        guard self == .json else { return sink(try encodedBytes(document)[...]) }
        try JSONCassetteCodec.encode(document, inPiecesOf: pieceSize, names: names, to: sink)
    }

    /// ``encode(_:)``'s bytes before they are copied into a `Data`, for saving large cassettes.
    package func encodedBytes(_ document: CassetteDocument) throws(CassetteFormatError) -> [UInt8] {
        switch self {
        case .json: return try JSONCassetteCodec.encodedBytes(document)
        case .httpMessages: return try HTTPMessageCassetteCodec.encodedBytes(document)
        case .har: return try HARCassetteCodec.encodedBytes(document)
        }
    }

    /// Encodes a cassette in this format.
    ///
    /// - Throws: ``CassetteFormatError`` when a value could not be read back.
    public func encode(_ document: CassetteDocument) throws(CassetteFormatError) -> Data {
        switch self {
        case .json: return try JSONCassetteCodec.encode(document)
        case .httpMessages: return try HTTPMessageCassetteCodec.encode(document)
        case .har: return try HARCassetteCodec.encode(document)
        }
    }
}
