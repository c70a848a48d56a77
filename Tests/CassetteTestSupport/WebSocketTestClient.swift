import Cassette
import CassetteServer
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The project's own small WebSocket client, for the tests: opens a connection to 127.0.0.1,
/// makes the RFC 6455 handshake (checking `Sec-WebSocket-Accept`), sends masked frames and reads
/// what comes back with the time it arrived.
package final class WebSocketTestClient: @unchecked Sendable {
    /// A message as received, with the seconds since the handshake completed.
    package struct Received: Sendable, Equatable {
        public var message: WebSocketFrameReader.Message
        public var at: TimeInterval
    }

    package struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    private let connection: RawHTTP
    private var reader = WebSocketFrameReader(role: .client)
    /// When the handshake completed.
    package let opened: Date
    /// The `101` response's head.
    package let handshake: String

    /// Connects to `ws://127.0.0.1:port` + `path` and completes the handshake.
    package init(port: Int, path: String, protocols: [String] = [], headers: [(String, String)] = []) throws {
        connection = try RawHTTP(port: port)
        let key = Data((0..<16).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
        var request =
            "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: 13\r\n"
        if !protocols.isEmpty { request += "Sec-WebSocket-Protocol: \(protocols.joined(separator: ", "))\r\n" }
        for (name, value) in headers { request += "\(name): \(value)\r\n" }
        guard connection.send(request + "\r\n") else { throw Failure(description: "the handshake could not be sent") }
        var bytes = Data()
        let deadline = Date(timeIntervalSinceNow: 5)
        while bytes.range(of: Data("\r\n\r\n".utf8)) == nil {
            let more = connection.receiveFirstBytes(timeout: max(0, deadline.timeIntervalSinceNow))
            if more.isEmpty { throw Failure(description: "no handshake response; received \(String(decoding: bytes, as: UTF8.self))") }
            bytes += more
        }
        guard let end = bytes.range(of: Data("\r\n\r\n".utf8)) else { throw Failure(description: "no handshake response") }
        handshake = String(decoding: bytes[..<end.lowerBound], as: UTF8.self)
        guard handshake.hasPrefix("HTTP/1.1 101"),
            handshake.lowercased().contains("sec-websocket-accept: \(WebSocketHandshake.accept(forKey: key).lowercased())")
        else { throw Failure(description: "the handshake was refused or its accept key is wrong:\n\(handshake)") }
        opened = Date()
        reader.append(Data(bytes[end.upperBound...]))
    }

    /// Sends one frame, masked.
    @discardableResult
    package func send(_ opcode: WebSocketFrame.Opcode, _ payload: Data, fin: Bool = true) -> Bool {
        let mask = (0..<4).map { _ in UInt8.random(in: 0...255) }
        return connection.send(WebSocketFrame(fin: fin, opcode: opcode, payload: payload).encoded(mask: mask))
    }

    /// Sends a text message.
    @discardableResult
    package func send(text: String) -> Bool { send(.text, Data(text.utf8)) }

    /// Sends bytes as they are: frames a well-behaved client would never send.
    @discardableResult
    package func sendRaw(_ bytes: Data) -> Bool { connection.send(bytes) }

    /// Sends a close frame.
    @discardableResult
    package func close(code: UInt16 = 1000, reason: String = "") -> Bool {
        send(.close, WebSocketFrame.closePayload(code: code, reason: reason))
    }

    /// The next message, waiting up to `timeout`; nil when none came or the connection closed.
    ///
    /// - Throws: ``Failure`` when the server broke the protocol.
    package func receive(timeout: TimeInterval = 5) throws -> Received? {
        let deadline = Date(timeIntervalSinceNow: timeout)
        while true {
            do {
                if let message = try reader.next() { return Received(message: message, at: Date().timeIntervalSince(opened)) }
            } catch {
                throw Failure(description: "the server broke the protocol: \(error.reason) (\(error.code))")
            }
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0 else { return nil }
            let bytes = connection.receiveFirstBytes(timeout: remaining)
            if bytes.isEmpty { return nil }
            reader.append(bytes)
        }
    }

    /// Every message until the server closes (its close included) or `timeout` passes.
    package func receiveAll(timeout: TimeInterval = 5) throws -> [Received] {
        var all: [Received] = []
        let deadline = Date(timeIntervalSinceNow: timeout)
        while let next = try receive(timeout: max(0, deadline.timeIntervalSinceNow)) {
            all.append(next)
            if case .close = next.message { break }
        }
        return all
    }
}
