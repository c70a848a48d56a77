import Cassette
import CassetteTools
import Foundation

// Processes cannot be started on iOS, tvOS or watchOS (CassetteTools' SpawnedProcess is Linux and macOS only).
#if os(Linux) || os(macOS)

/// Debian's `chromium`, headless, as a test tool: loads a page from `file://`, runs its scripts and
/// gives back the DOM they left, or a screenshot. `.ci/run` installs it when it is missing; a test
/// that needs it runs when it is installed, and fails (rather than skips) under `CI` without it.
public enum HeadlessBrowser {
    /// The browser's path, or nil when none is installed.
    public static let path: String? = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    /// Whether tests that need it run: it is installed, or `CI` is set (and then its absence fails them).
    public static var runsTests: Bool { path != nil || ProcessInfo.processInfo.environment["CI"] != nil }

    /// The DOM of `url` after its scripts ran (`--dump-dom`).
    public static func dom(of url: URL, width: Int = 1280, height: Int = 800) throws -> String {
        String(decoding: try run(["--dump-dom", url.absoluteString], width: width, height: height), as: UTF8.self)
    }

    /// A PNG of `url` as a `width`×`height` window shows it.
    public static func screenshot(of url: URL, to file: URL, width: Int = 1280, height: Int = 800) throws {
        _ = try run(["--screenshot=\(file.path)", url.absoluteString], width: width, height: height)
    }

    private static func run(_ arguments: [String], width: Int, height: Int) throws -> Data {
        guard let path else { throw ServerError("no headless browser: install Debian's chromium (.ci/run does)") }
        let result = try SpawnedProcess.run(
            executable: path,
            ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run", "--window-size=\(width),\(height)"]
                + arguments)
        guard result.status == 0 else { throw ServerError("chromium exited with \(result.status)") }
        let data = result.output
        return data
    }
}

/// Pieces of a dumped DOM, read with regular expressions: enough for pages whose markup the test knows.
public struct DumpedDOM {
    public let html: String

    public init(_ html: String) { self.html = html }

    /// The text of every match of `pattern`'s first group.
    public func all(_ pattern: String) -> [String] {
        guard let expression = try? NSRegularExpression(pattern: pattern, options: [.dotMatchesLineSeparators]) else { return [] }
        let range = NSRange(html.startIndex..., in: html)
        return expression.matches(in: html, range: range).compactMap { match in
            guard match.numberOfRanges > 1, let found = Range(match.range(at: 1), in: html) else { return nil }
            return String(html[found])
        }
    }

    /// `html` with its tags removed and the entities a serialiser writes decoded.
    public static func text(_ html: String) -> String {
        let bare = html.replacingOccurrences(of: "<[^>]*>", with: "", options: .regularExpression)
        return bare.replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&nbsp;", with: "\u{A0}")
            .replacingOccurrences(of: "&amp;", with: "&")
    }
}
#endif
