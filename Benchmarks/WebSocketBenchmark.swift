import Cassette
import CassetteServer
import CassetteTestSupport
import Foundation

/// A replaying server's WebSocket against a bare echo server written the same way (the loopback
/// server's `/ws/echo`: a thread per connection, the same frame reader and writer): `clients`
/// connections at once, each sending `messages` text messages one after another and waiting for
/// each answer. Time per message; the goal is at least 0.8× the echo server's messages per second.
enum WebSocketBenchmark {
    static func pair(clients: Int, messages: Int, folder: URL) throws -> Harness.Pair {
        let file = folder.appendingPathComponent("ws-echo.json")
        var conversation: [Interaction.WebSocketMessage] = []
        for index in 0..<messages {
            let at = Double(index) * 0.001
            conversation += [.text(text(index), from: .client, at: at), .text(text(index), from: .server, at: at)]
        }
        try JSONCassetteCodec.encode(
            CassetteDocument(interactions: [
                Interaction(
                    request: .init(url: "http://127.0.0.1" + LoopbackWebSocket.echoPath),
                    response: .init(status: 101, headers: ["Upgrade": "websocket", "Connection": "Upgrade"]),
                    webSocket: .init(messages: conversation))
            ])
        ).write(to: file)
        let total = Double(clients * messages)
        return Harness.Pair(
            name: "ws_replay_vs_echo",
            what: "\(clients) WebSocket clients × \(messages) messages, each waiting for its answer; time per message "
                + "(goal 1.25: at least 0.8× the echo server's messages/s)",
            aLabel: "TapeServer replay", bLabel: "echo server", unit: "s/op", goal: 1.25,
            a: {
                let tape = try Tape(
                    file: file, mode: .none, matching: .default.ignoringHost(),
                    options: .init(allowsRepeatedReplays: true, latency: .instant),
                    environment: [:])
                let server = try tape.serve()
                defer { _ = try? tape.eject() }
                return try drive(port: server.port, clients: clients, messages: messages) / total
            },
            b: {
                let server = try LoopbackServer()
                defer { server.stop() }
                return try drive(port: server.port, clients: clients, messages: messages) / total
            })
    }

    static func text(_ index: Int) -> String { #"{"message":\#(index),"text":"hello from the benchmark"}"# }

    /// Seconds for `clients` connections (opened first) to exchange `messages` each; throws on a wrong answer.
    static func drive(port: Int, clients: Int, messages: Int) throws -> Double {
        let connections = try (0..<clients).map { _ in try WebSocketTestClient(port: port, path: LoopbackWebSocket.echoPath) }
        let failures = Locked<[String]>([])
        let group = DispatchGroup()
        let start = DispatchTime.now().uptimeNanoseconds
        for client in connections {
            group.enter()
            Thread {
                defer { group.leave() }
                for index in 0..<messages {
                    client.send(text: text(index))
                    guard case .text(let answer)? = try? client.receive()?.message, answer == text(index) else {
                        return failures.withLock { $0.append("message \(index) was not answered with itself") }
                    }
                }
                client.close()
            }.start()
        }
        group.wait()
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        if let first = failures.withLock({ $0.first }) { throw Requests.Failed(description: "ws_replay_vs_echo: \(first)") }
        return seconds
    }
}
