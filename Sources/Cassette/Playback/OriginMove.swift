import Foundation

/// A recording replayed for a request to another origin (``RequestMatching/ignoringPort()``,
/// ``RequestMatching/ignoringHost()``) points where the live request went: a `Location` or a
/// response URL on the recorded origin is moved to the live one, so a redirect is followed to the
/// server under test and the caller sees its URLs, as it would live.
package enum OriginMove {
    /// `interaction` for a request to `liveURL`, when `rule` lets origins differ.
    static func replayed(_ interaction: Interaction, for liveURL: String, rule: RequestMatching.Origin) -> Interaction {
        guard rule != .exact, var response = interaction.response else { return interaction }
        let hasLocation = response.headers.contains("Location")
        // A response that names no URL (most do not: no redirect, no response URL) has nothing to move.
        guard response.url != nil || hasLocation, let recorded = origin(of: interaction.request.url), let live = origin(of: liveURL),
            !equalIgnoringCase(recorded, live)
        else { return interaction }
        func moved(_ url: String) -> String {
            guard hasPrefixIgnoringCase(url, recorded) else { return url }
            let rest = url.dropFirst(recorded.count)
            guard rest.isEmpty || rest.first == "/" || rest.first == "?" || rest.first == "#" else { return url }
            return live + rest
        }
        response.url = response.url.map(moved)
        if hasLocation {
            response.headers.transformValues { name, value in asciiCaseInsensitiveEquals(name, "Location") ? moved(value) : value }
        }
        var interaction = interaction
        interaction.response = response
        return interaction
    }

    /// Whether two origins are the same, ignoring case: by ASCII bytes (every request that may
    /// move origins compares two), lower-cased as Unicode only when either holds a byte beyond ASCII.
    private static func equalIgnoringCase(_ a: String, _ b: String) -> Bool {
        if isASCII(a) && isASCII(b) { return asciiCaseInsensitiveEquals(a, b) }
        return a.lowercased() == b.lowercased()
    }

    /// Whether `url` starts with `prefix`, ignoring case, as ``equalIgnoringCase(_:_:)`` compares.
    private static func hasPrefixIgnoringCase(_ url: String, _ prefix: String) -> Bool {
        guard isASCII(url) && isASCII(prefix) else { return url.lowercased().hasPrefix(prefix.lowercased()) }
        guard url.utf8.count >= prefix.utf8.count, let start = String(url.utf8.prefix(prefix.utf8.count)) else { return false }
        return asciiCaseInsensitiveEquals(start, prefix)
    }

    private static func isASCII(_ text: String) -> Bool { text.utf8.allSatisfy { $0 < 0x80 } }

    /// `https://host:port` as written at the start of `url`.
    ///
    /// The bytes are searched, not the characters: this runs for every replay that may move origins
    /// and every request `TapeServer` forwards, and Foundation's `range(of:)` cost more than the rest
    /// of the move (`serve_vs_static`).
    package static func origin(of url: String) -> String? {
        guard let scheme = url.utf8Offset(of: "://") else { return nil }
        var text = url
        return text.withUTF8 { bytes in
            var end = scheme + 3
            while end < bytes.count, bytes[end] != UInt8(ascii: "/"), bytes[end] != UInt8(ascii: "?"), bytes[end] != UInt8(ascii: "#") {
                end += 1
            }
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[..<end]), as: UTF8.self)
        }
    }
}
