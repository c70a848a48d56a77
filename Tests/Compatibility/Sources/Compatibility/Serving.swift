import Cassette
import CassetteServer
import Foundation

// A tape answering over HTTP for a client that does not use URLSession, as the Guide's
// "A real server" chapter writes it.

func serving(folder: URL) throws {
    let tape = try Tape(named: "Users/fetch", folder: folder.path, mode: .none)
    let server = try tape.serve(TapeServer.Options(host: "127.0.0.1", port: 0, unmatchedStatus: 500))
    _ = (server.baseURL, server.port, server.tape, server.report)
    server.stop()
    try tape.eject()

    var limits = TapeServer.Limits(requestLine: 8_192, headerBytes: 65_536, bodyBytes: 1 << 26, headerTimeout: 10, idleTimeout: 60)
    limits.requestLine = 4_096
    limits.headerBytes = 32_768
    limits.bodyBytes = 1 << 20
    limits.headerTimeout = 5
    limits.idleTimeout = 30
    var admin = TapeServer.Admin(prefix: "/__cassette/", token: "secret")
    admin.prefix = "/admin/"
    admin.token = nil
    var options = TapeServer.Options(
        host: "127.0.0.1", port: 0, upstream: URL(string: "https://api.example.com"), unmatchedStatus: 599, maxConnections: 64,
        limits: limits, onUnmatched: { miss in _ = miss.request }, admin: admin)
    options.host = "0.0.0.0"
    options.port = 8080
    options.upstream = nil
    options.unmatchedStatus = 500
    options.maxConnections = 256
    options.limits = limits
    options.onUnmatched = nil
    options.admin = nil

    let folderServer = try TapeServer(
        folder: folder.path, mode: .none, matching: .default, tapeOptions: Tape.Options(), environment: [:], options: options)
    _ = try folderServer.load("Users/fetch", beneath: ["Shared/auth"])
    _ = try folderServer.eject()
    let own = try TapeServer(tape: try Tape(named: "feed", folder: folder.path), options: TapeServer.Options())
    _ = (TapeServer.unmatchedHeader, TapeServer.adminTokenHeader)
    own.stop()
}
