import CassetteTestSupport
import Foundation
import Testing

/// The test server itself: a thread that answers a delayed request does not outlive its client.
/// (One that slept on through a timeout test's 12-second delay was still running when the test
/// process exited, and LeakSanitizer reported the reply it held as a leak.)
@Suite struct LoopbackServerTests {
    /// Polls `condition` every 10 ms for up to `seconds`.
    private func eventually(within seconds: TimeInterval, _ condition: () -> Bool) async -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition() { return true }
            try? await Task.sleep(nanoseconds: 10_000_000)
        }
        return condition()
    }

    @Test func aDelayedReplyIsAbandonedWhenTheClientHangsUp() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        var client: RawHTTP? = try RawHTTP(port: server.port)
        #expect(client?.send("GET /delay/30000 HTTP/1.1\r\nHost: loopback\r\n\r\n") == true)
        #expect(await eventually(within: 5) { server.received.count == 1 })
        #expect(server.connectionThreads == 1)
        client = nil  // closes the socket
        #expect(await eventually(within: 5) { server.connectionThreads == 0 }, "the thread still waits out the delay")
    }

    @Test func aDelayedReplyIsAbandonedWhenTheServerStops() async throws {
        let server = try LoopbackServer()
        let client = try RawHTTP(port: server.port)
        #expect(client.send("GET /slow-chunks/3/30000 HTTP/1.1\r\nHost: loopback\r\n\r\n"))
        let first = client.receiveFirstBytes()
        #expect(String(decoding: first, as: UTF8.self).hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(server.connectionThreads == 1)
        server.stop()
        #expect(await eventually(within: 5) { server.connectionThreads == 0 }, "the thread still waits between chunks")
        #expect(client.receiveUntilClosed().closed)
    }
}
