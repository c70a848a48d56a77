import Foundation

/// The table of cassette names every caller that takes one resolves alike (tapes, `withCassette`,
/// the trait, the folder server, `cassette fault --as-copy`): each name with the file it is in
/// ``folder(in:)``'s layout, or nil for a name that is refused.
public enum CassetteNames {
    /// A folder laid out for the table: `plain.json`, `httponly.http`, `haronly.har`, `both.json`
    /// and `both.http`, `Nested/deep.json`, a hidden `.hidden.json`, a rules file, and `escape.json`,
    /// a link to a cassette outside the folder. Every cassette holds one interaction.
    public static func folder(in scratch: URL) throws -> URL {
        let folder = scratch.appendingPathComponent("Cassettes", isDirectory: true)
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("Nested"), withIntermediateDirectories: true)
        let json = Data(
            #"{ "version": 1, "interactions": [ { "request": { "method": "GET", "url": "https://api.example.com/a" }, "response": { "status": 200 } } ] }"#
                .utf8)
        let http = Data("# version: 1\n\n###\nGET https://api.example.com/a HTTP/1.1\n\nHTTP/1.1 200 OK\n".utf8)
        for name in ["plain.json", "both.json", "Nested/deep.json", ".hidden.json"] {
            try json.write(to: folder.appendingPathComponent(name))
        }
        for name in ["httponly.http", "both.http"] { try http.write(to: folder.appendingPathComponent(name)) }
        try Data(#"{ "log": { "version": "1.2", "creator": { "name": "Cassette", "version": "" }, "entries": [] } }"#.utf8)
            .write(to: folder.appendingPathComponent("haronly.har"))
        try Data("{}".utf8).write(to: folder.appendingPathComponent("cassette-rules.json"))
        try json.write(to: scratch.appendingPathComponent("outside.json"))
        try FileManager.default.createSymbolicLink(
            at: folder.appendingPathComponent("escape.json"), withDestinationURL: scratch.appendingPathComponent("outside.json"))
        return folder
    }

    /// Each name, and the file it is (relative to the folder), or nil when it is refused.
    public static let table: [(name: String, file: String?)] = [
        ("plain", "plain.json"),
        ("plain.json", "plain.json"),
        ("httponly", "httponly.http"),
        ("haronly", "haronly.har"),
        // An extension in another case is the file that exists, as on a case-insensitive file system
        // (macOS's): one name finds one cassette on every platform.
        ("haronly.HAR", "haronly.har"),
        ("both", "both.json"),
        ("both.http", "both.http"),
        ("Nested/deep", "Nested/deep.json"),
        ("new", "new.json"),
        ("Nested/new", "Nested/new.json"),
        (".hidden", nil),
        (".hidden.json", nil),
        ("Nested/.x", nil),
        ("../outside", nil),
        ("Nested/../plain", nil),
        ("", nil),
        ("/etc/passwd", nil),
        ("a//b", nil),
        ("back\\slash", nil),
        ("cassette-rules", nil),
        ("cassette-rules.json", nil),
        ("escape", nil),
    ]

    /// Whether the table's file for a name exists in the folder before anything is written.
    public static func exists(_ file: String) -> Bool {
        !["new.json", "Nested/new.json"].contains(file)
    }
}
