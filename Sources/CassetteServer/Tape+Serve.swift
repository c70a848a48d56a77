import Cassette
import Foundation

extension Tape {
    /// Starts an HTTP server that answers from this tape, for clients outside this process's
    /// `URLSession`s (see ``TapeServer``); `tape.eject()` stops it.
    ///
    /// ```swift
    /// @Test(.cassette(matching: .default.ignoringHost())) func appShowsTheFeed() async throws {
    ///     let server = try #require(Tape.current).serve()
    ///     let app = XCUIApplication()
    ///     app.launchEnvironment["API_BASE_URL"] = server.baseURL.absoluteString
    ///     app.launch()
    /// }
    /// ```
    ///
    /// - Throws: `CassetteError.serverFailed(_:)`, `CassetteError.alreadyEjected(file:)`.
    public func serve(_ options: TapeServer.Options = TapeServer.Options()) throws -> TapeServer {
        if isEjected { throw CassetteError.alreadyEjected(file: file.path) }
        return try TapeServer(tape: self, options: options)
    }
}
