import Cassette
import CassetteServer
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The loopback server's WebSocket: `GET /ws/echo-push` upgrades, then the conversation the
/// WebSocket tests record and replay — each text message the client sends is answered with
/// `{"echo": MESSAGE, "n": N}`; after the third, the server pushes five updates
/// (`{"update": 1}` … `{"update": 5}`) 100 ms apart and closes with 1000 "done". Binary messages
/// are echoed as they came, pings answered with pongs, a client's close answered with the same
/// code. A frame that breaks RFC 6455 gets the close code the rule names (1002, 1007, 1009).
///
/// `GET /ws/echo` is a bare echo: every message comes back as it came, until the client closes
/// (the benchmark's baseline for a replaying server).
package enum LoopbackWebSocket {
    package static let path = "/ws/echo-push"
    package static let echoPath = "/ws/echo"
    /// The largest message the server accepts.
    static let maximumMessageSize = 65_536

    /// Whether `request` asks for the server's WebSocket.
    static func isUpgrade(_ request: LoopbackServer.Received) -> Bool {
        (request.target.hasPrefix(path) || request.target == echoPath)
            && WebSocketUpgrade.isAsked { request.headers[$0.lowercased()] }
    }

    /// Answers the upgrade `request` on `connection` (bytes already read past its head in
    /// `leftover`) and holds the conversation until either side closes.
    static func converse(on connection: Int32, request: LoopbackServer.Received, leftover: Data) {
        let handshake = WebSocketHandshake.upgrade(method: request.method) { request.headers[$0.lowercased()] }
        guard case .success(let upgrade) = handshake else {
            if case .failure(let refusal) = handshake {
                let head =
                    "HTTP/1.1 \(refusal.status) Refused\r\nContent-Length: \(refusal.reason.utf8.count)\r\n"
                    + refusal.headers.map { "\($0.0): \($0.1)\r\n" }.joined() + "\r\n" + refusal.reason
                write(Data(head.utf8), to: connection)
            }
            return
        }
        let chosen = upgrade.protocols.first
        let head =
            "HTTP/1.1 101 Switching Protocols\r\n"
            + WebSocketHandshake.responseHeaders(for: upgrade, chosenProtocol: chosen).map { "\($0.0): \($0.1)\r\n" }.joined() + "\r\n"
        guard write(Data(head.utf8), to: connection) else { return }
        var reader = WebSocketFrameReader(role: .server, maximumMessageSize: maximumMessageSize)
        reader.append(leftover)
        let echoes = request.target == echoPath
        var received = 0
        while true {
            let message: WebSocketFrameReader.Message?
            do {
                message = try reader.next()
            } catch {
                sendFrame(.close, WebSocketFrame.closePayload(code: error.code, reason: error.reason), on: connection)
                return
            }
            guard let message else {
                guard let bytes = readSome(from: connection) else { return }
                reader.append(bytes)
                continue
            }
            switch message {
            case .text(let text) where echoes:
                guard sendFrame(.text, Data(text.utf8), on: connection) else { return }
            case .text(let text):
                received += 1
                let echoed = (try? JSONParser.parse(Data(text.utf8))).map { String(decoding: JSONWriter.compact($0.value), as: UTF8.self) }
                let reply = "{\"echo\":\(echoed ?? quoted(text)),\"n\":\(received)}"
                guard sendFrame(.text, Data(reply.utf8), on: connection) else { return }
                if received == 3 {
                    for update in 1...5 {
                        usleep(100_000)
                        guard sendFrame(.text, Data("{\"update\":\(update)}".utf8), on: connection) else { return }
                    }
                    sendFrame(.close, WebSocketFrame.closePayload(code: WebSocketCloseCode.normal, reason: "done"), on: connection)
                    return
                }
            case .binary(let data):
                guard sendFrame(.binary, data, on: connection) else { return }
            case .ping(let data):
                guard sendFrame(.pong, data, on: connection) else { return }
            case .pong:
                continue
            case .close(let code, _):
                sendFrame(.close, WebSocketFrame.closePayload(code: code, reason: ""), on: connection)
                return
            }
        }
    }

    private static func quoted(_ text: String) -> String {
        var out: [UInt8] = []
        JSONWriter.appendString(text, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    @discardableResult
    private static func sendFrame(_ opcode: WebSocketFrame.Opcode, _ payload: Data, on connection: Int32) -> Bool {
        write(WebSocketFrame(opcode: opcode, payload: payload).encoded(), to: connection)
    }

    @discardableResult
    static func write(_ data: Data, to connection: Int32) -> Bool { LoopbackSocket.write(data, to: connection) }

    /// What arrives next on `connection`; nil when it closed.
    static func readSome(from connection: Int32) -> Data? {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let count = recv(connection, &chunk, chunk.count, 0)
        return count > 0 ? Data(chunk[0..<count]) : nil
    }
}
