import CassetteTestSupport
import Foundation
import Testing

/// Sockets are counted from this process's own descriptors, the same way on every platform: a
/// listener, then the connection it accepted, then none once both are closed.
@Suite(.timingIsolated) struct OpenSocketsTests {
    @Test func aListenerAndItsAcceptedConnectionsAreCountedUntilClosed() async throws {
        let server = try LoopbackServer()
        let port = server.port
        #expect(OpenSockets.count(localPort: port) == 1, "the listener")
        var client: RawHTTP? = try RawHTTP(port: port)
        client?.send("GET /status/204 HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(client?.receiveResponse(timeout: 10)?.head.hasPrefix("HTTP/1.1 204") == true)
        #expect(OpenSockets.count(localPort: port) == 2, "the listener and the accepted connection")
        // The client's own socket has an ephemeral local port: it is not counted under the server's.
        let clientPort = try #require(client.flatMap { OpenSockets.localPort(of: $0.socket) })
        #expect(clientPort != port && clientPort > 0)
        client = nil
        server.stop()
        for _ in 0..<100 where OpenSockets.count(localPort: port) > 0 { try await Task.sleep(nanoseconds: 20_000_000) }
        #expect(OpenSockets.count(localPort: port) == 0)
    }

    @Test func aFileIsNoSocket() throws {
        let handle = try #require(FileHandle(forReadingAtPath: PackagePaths.root.appendingPathComponent("Package.swift").path))
        defer { try? handle.close() }
        let descriptors = try #require(OpenSockets.descriptors())
        #expect(descriptors.contains(handle.fileDescriptor))
        #expect(OpenSockets.localPort(of: handle.fileDescriptor) == nil)
        #expect(OpenSockets.localPort(of: -1) == nil)
    }
}
