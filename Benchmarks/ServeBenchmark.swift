import Cassette
import CassetteServer
import CassetteTestSupport
import Foundation

/// `cassette serve`'s server replaying a small response, against a minimal static loopback server
/// answering the same, both driven by the same harness: `clients` kept-alive connections, each on
/// its own thread, sending requests one after another.
enum ServeBenchmark {
    static func pair(clients: Int, requestsPerClient: Int, folder: URL) throws -> Harness.Pair {
        let file = folder.appendingPathComponent("serve.json")
        try JSONCassetteCodec.encode(
            CassetteDocument(interactions: [
                Interaction(
                    request: .init(url: "http://127.0.0.1/status/200"),
                    response: .init(
                        status: 200, headers: ["Content-Type": "text/plain; charset=utf-8", "Content-Length": "10"],
                        body: .init(text: "status 200")))
            ])
        ).write(to: file)
        let requests = clients * requestsPerClient
        return Harness.Pair(
            name: "serve_vs_static",
            what: "GET a 10-byte response, \(clients) kept-alive clients × \(requestsPerClient) requests; time per request "
                + "(goal 1.10: at least 0.91× the static server's requests/s)",
            aLabel: "TapeServer", bLabel: "static server", unit: "s/op", goal: 1.10,
            a: {
                let tape = try Tape(
                    file: file, mode: .none, matching: .default.ignoringHost(),
                    options: .init(allowsRepeatedReplays: true), environment: [:])
                let server = try tape.serve()
                defer { _ = try? tape.eject() }
                return try drive(port: server.port, clients: clients, requestsPerClient: requestsPerClient) / Double(requests)
            },
            b: {
                let server = try LoopbackServer()
                defer { server.stop() }
                return try drive(port: server.port, clients: clients, requestsPerClient: requestsPerClient) / Double(requests)
            })
    }

    /// The load check of `cassette serve`: `clients` kept-alive connections × `requestsPerClient`
    /// requests against one server, once: every answer whole, and none of the server's sockets
    /// left once it stopped. Prints a `LOAD` line; throws on any failure.
    static func load(clients: Int, requestsPerClient: Int, folder: URL) throws {
        let file = folder.appendingPathComponent("serve.json")
        let tape = try Tape(
            file: file, mode: .none, matching: .default.ignoringHost(), options: .init(allowsRepeatedReplays: true), environment: [:])
        let server = try tape.serve()
        let port = server.port
        let seconds = try drive(port: port, clients: clients, requestsPerClient: requestsPerClient)
        try tape.eject()
        let left = OpenSockets.count(localPort: port)
        let total = clients * requestsPerClient
        print(
            "LOAD name=serve_load clients=\(clients) requests=\(total) errors=0 seconds=\(String(format: "%.1f", seconds)) "
                + "requests_per_second=\(Int(Double(total) / seconds)) sockets_left=\(left)")
        if left > 0 { throw Failed(description: "\(left) of the server's sockets are still open after it stopped") }
    }

    struct Failed: Error, CustomStringConvertible {
        var description: String
    }

    /// Seconds for every client to get all its answers; throws on any answer that is not whole.
    static func drive(port: Int, clients: Int, requestsPerClient: Int) throws -> Double {
        let failures = Counter()
        let group = DispatchGroup()
        let start = Date()
        for _ in 0..<clients {
            group.enter()
            let thread = Thread {
                defer { group.leave() }
                guard let client = try? RawHTTP(port: port) else {
                    failures.add(requestsPerClient)
                    return
                }
                for _ in 0..<requestsPerClient {
                    client.send("GET /status/200 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                    guard client.receiveResponse(timeout: 30)?.body == Data("status 200".utf8) else {
                        failures.add(1)
                        return
                    }
                }
            }
            thread.start()
        }
        group.wait()
        let seconds = Date().timeIntervalSince(start)
        let failed = failures.value
        if failed > 0 { throw Failed(description: "\(failed) of \(clients * requestsPerClient) requests failed") }
        return seconds
    }
}
