/// A cassette as data: what recorded it and the interactions it holds, in order.
///
/// This is the value a codec reads from and writes to a file. It knows nothing about
/// `URLSession`; the `Cassette` module plays it back and records into it.
///
/// ```swift
/// let document = try JSONCassetteCodec.decode(data, file: "Cassettes/users.json")
/// for interaction in document.interactions { print(interaction.request.url) }
/// ```
public struct CassetteDocument: Sendable, Equatable {
    /// The JSON format version this library writes.
    package static let formatVersion = 1

    /// The JSON Schema a JSON cassette names for editors (its top-level `"$schema"` member),
    /// such as `"../.build/checkouts/Cassette/docs/cassette.schema.json"`; nil when it names none.
    ///
    /// Only the JSON format holds it: editors use it for completion, hover text and checking while
    /// a cassette is edited by hand, and Cassette keeps it when it rewrites the file. The `.http`
    /// and HAR formats have no place for it.
    public var schema: String?
    /// The tool that recorded the cassette, e.g. `"Cassette 1.1.0"`. Informational only.
    public var recordedWith: String?
    /// The interactions, in the order their requests started.
    public var interactions: [Interaction]
    /// What the tests that use the cassette keep with it (`Tape.metadata`): the API version it was
    /// recorded against, the account used, a ticket. Keys starting with `cassette` (in any case)
    /// or `$` are reserved. Empty for a cassette written without.
    public var metadata: [String: MetadataValue] = [:]

    /// A document from its parts: the interactions in order, and what the file says of itself
    /// (a JSON Schema for editors, ``schema``; the tool that wrote it, ``recordedWith``; the tests'
    /// own ``metadata``).
    ///
    /// ```swift
    /// let document = CassetteDocument(interactions: [
    ///     Interaction(request: .init(url: "https://api.example.com/users/42"), response: .init(status: 200))
    /// ])
    /// ```
    public init(
        schema: String? = nil, recordedWith: String? = nil, interactions: [Interaction] = [],
        metadata: [String: MetadataValue] = [:]
    ) {
        self.schema = schema
        self.recordedWith = recordedWith
        self.interactions = interactions
        self.metadata = metadata
    }
}
