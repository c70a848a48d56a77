import Cassette
import CassetteTools
import Foundation

// Processes cannot be started on iOS, tvOS or watchOS (CassetteTools' SpawnedProcess is Linux and macOS only).
#if os(Linux) || os(macOS)

/// A WebSocket client nobody here wrote: Python's `websockets` (from PyPI; CI installs it in its
/// venv and names the interpreter in `CASSETTE_PYTHON`), holding the echo + push conversation of
/// ``LoopbackWebSocket``: a ping, three JSON messages each sent once the last is answered, then
/// everything until the server's close.
package enum PythonWebSocketClient {
    /// What the client saw.
    package struct Conversation: Decodable, Equatable {
        /// Seconds from the last message sent before each message received to it: how long the
        /// server took to answer, as a replay times it.
        package var answeredAfter: [Double] {
            at.map { arrived in arrived - (sent.last { $0 <= arrived } ?? 0) }
        }

        /// The subprotocol the server chose.
        package var subprotocol: String?
        /// Whether the ping was answered.
        package var pong: Bool
        /// The text messages received, in order.
        package var messages: [String]
        /// Seconds from the handshake to each message.
        package var at: [Double]
        /// Seconds from the handshake to each message sent.
        package var sent: [Double]
        /// The server's close: code and reason.
        package var close: [CloseField]?
    }

    /// A close's code or reason, as Python prints them in one list.
    package enum CloseField: Decodable, Equatable {
        case code(Int)
        case reason(String)

        package init(from decoder: Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let code = try? container.decode(Int.self) { self = .code(code) } else { self = .reason(try container.decode(String.self)) }
        }
    }

    /// A Python interpreter that has `websockets`: `CASSETTE_PYTHON`, else the first `python3` on
    /// `PATH` (on every platform: Debian's, Homebrew's, a venv's); nil when neither has it.
    package static let python: String? = {
        let commands = [ProcessInfo.processInfo.environment["CASSETTE_PYTHON"].map { [$0] }, ["/usr/bin/env", "python3"]]
        for case let command? in commands {
            let asked = ["-c", "import sys, websockets; print(sys.executable)"]
            guard let result = try? SpawnedProcess.run(executable: command[0], Array(command.dropFirst()) + asked),
                result.status == 0
            else { continue }
            let path = String(decoding: result.output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            if !path.isEmpty { return path }
        }
        return nil
    }()

    package struct Failure: Error, CustomStringConvertible {
        package var description: String
    }

    static let script = """
        import asyncio, json, sys, time, websockets
        async def main():
            async with websockets.connect(sys.argv[1], subprotocols=["chat.v1"], compression=None) as ws:
                start = time.monotonic()
                out = {"subprotocol": ws.subprotocol, "messages": [], "at": [], "sent": []}
                await (await ws.ping(b"hi"))
                out["pong"] = time.monotonic() - start < 5
                async def receive():
                    out["messages"].append(await ws.recv())
                    out["at"].append(time.monotonic() - start)
                for n in range(1, 4):
                    out["sent"].append(time.monotonic() - start)
                    await ws.send(json.dumps({"say": f"hello {n}"}))
                    await receive()
                try:
                    while True:
                        await receive()
                except websockets.ConnectionClosedOK as closed:
                    out["close"] = [closed.rcvd.code, closed.rcvd.reason]
            print(json.dumps(out))
        asyncio.run(main())
        """

    /// Holds the conversation with the WebSocket at `url` (`ws://…`).
    package static func converse(_ url: String) throws -> Conversation {
        guard let python else { throw Failure(description: "no Python with websockets (set CASSETTE_PYTHON)") }
        let result = try SpawnedProcess.run(executable: python, ["-c", script, url])
        let printed = result.output
        guard result.status == 0 else {
            throw Failure(
                description: "python exited \(result.status): \(String(decoding: printed + result.errors, as: UTF8.self))")
        }
        return try JSONDecoder().decode(Conversation.self, from: printed)
    }
}
#endif
