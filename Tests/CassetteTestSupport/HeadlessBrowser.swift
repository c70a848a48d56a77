import Cassette
import CassetteTools
import Foundation

// Processes cannot be started on iOS, tvOS or watchOS (CassetteTools' SpawnedProcess is Linux and macOS only).
#if os(Linux) || os(macOS)

/// Chromium or Google Chrome, headless, as a test tool: loads a page from `file://`, runs its
/// scripts and gives back the DOM they left, or a screenshot. `.ci/run` installs Debian's
/// `chromium` when it is missing; GitHub's macOS runners have Google Chrome. A test that needs it
/// runs when one is found, and fails (rather than skips) under `CI` without it.
public enum HeadlessBrowser {
    /// The browser's path: `CASSETTE_BROWSER` when set, else the first of ``candidates`` that is
    /// installed; nil when there is none.
    public static let path: String? = {
        if let chosen = ProcessInfo.processInfo.environment["CASSETTE_BROWSER"], !chosen.isEmpty { return chosen }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
    }()

    /// Where each platform keeps the browser, in the order they are tried.
    public static var candidates: [String] {
        #if os(macOS)
        let applications = ["/Applications", NSHomeDirectory() + "/Applications"]
        return applications.flatMap { folder in
            [
                "\(folder)/Google Chrome.app/Contents/MacOS/Google Chrome",
                "\(folder)/Chromium.app/Contents/MacOS/Chromium",
            ]
        }
        #elseif os(Linux)
        // Debian's and Ubuntu's packages, and Google's.
        return ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"]
        #else
        return []  // iOS starts no process
        #endif
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
        guard let path else {
            throw ServerError(
                "no headless browser in \(candidates): install Chromium or Google Chrome, or set CASSETTE_BROWSER "
                    + "to one (.ci/run installs Debian's chromium)")
        }
        let result = try SpawnedProcess.run(
            executable: path,
            ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run", "--window-size=\(width),\(height)"]
                + arguments)
        guard result.status == 0 else { throw ServerError("\(path) exited with \(result.status)") }
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
