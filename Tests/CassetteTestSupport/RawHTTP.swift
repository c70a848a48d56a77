import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A TCP client that sends exactly the bytes a test gives it and returns exactly what came back:
/// for requests no well-behaved client would send, and for counting what a server writes.
public final class RawHTTP: @unchecked Sendable {
    public let socket: Int32

    /// Connects to 127.0.0.1:`port`.
    public init(port: Int) throws {
        socket = Glibc_socket()
        guard socket >= 0 else { throw ServerError("socket() failed: \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            closeSocket(socket)
            throw ServerError("connect to 127.0.0.1:\(port) failed: \(errno)")
        }
        var yes: Int32 = 1
        setsockopt(socket, Int32(IPPROTO_TCP), TCP_NODELAY, &yes, socklen_t(MemoryLayout<Int32>.size))
    }

    deinit { closeSocket(socket) }

    /// Sends `bytes`; false when the server is gone.
    @discardableResult
    public func send(_ bytes: Data) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let count = bytes.withUnsafeBytes { raw in
                Glibc_send(socket, raw.baseAddress.map { $0 + sent }, raw.count - sent)
            }
            guard count > 0 else { return false }
            sent += count
        }
        return true
    }

    @discardableResult
    public func send(_ text: String) -> Bool { send(Data(text.utf8)) }

    /// Closes the sending side (the server reads end-of-file).
    public func finishSending() { shutdown(socket, Int32(SHUT_WR)) }

    /// What arrives until the server closes, or until `timeout` passes with nothing new.
    public func receiveUntilClosed(timeout: TimeInterval = 5) -> (data: Data, closed: Bool) {
        var data = Data()
        while true {
            var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, Int32(timeout * 1000)) > 0 else { return (data, false) }
            var chunk = [UInt8](repeating: 0, count: 65_536)
            let count = chunk.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            if count <= 0 { return (data, true) }
            data.append(contentsOf: chunk[0..<count])
        }
    }

    /// The first bytes that arrive, waiting up to `timeout`; empty when none came.
    public func receiveFirstBytes(timeout: TimeInterval = 5) -> Data {
        var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
        guard poll(&descriptor, 1, Int32(timeout * 1000)) > 0 else { return Data() }
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let count = chunk.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
        return count > 0 ? Data(chunk[0..<count]) : Data()
    }

    /// One whole response of a kept-alive connection: its head, and a body by `Content-Length`
    /// (or none) or chunked (decoded); nil when the connection closed first. A `204` or `304` ends
    /// with its head, and so does any answer when `bodiless` (to a `HEAD`, or a `CONNECT`'s `2xx`),
    /// whatever its fields say (RFC 9112 §6.3).
    public func receiveResponse(timeout: TimeInterval = 5, bodiless: Bool = false) -> (head: String, body: Data)? {
        var data = Data()
        let deadline = Date(timeIntervalSinceNow: timeout)
        while true {
            if let end = data.range(of: Data("\r\n\r\n".utf8)) {
                let head = String(decoding: data[..<end.lowerBound], as: UTF8.self)
                let status = head.split(separator: " ", maxSplits: 2).dropFirst().first.flatMap { Int($0) }
                if bodiless || status == 204 || status == 304 { return (head, Data()) }
                if head.lowercased().contains("\r\ntransfer-encoding: chunked") {
                    if let body = Self.dechunked(data[end.upperBound...]) { return (head, body) }
                } else {
                    let length =
                        head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
                        .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0
                    let bodyStart = end.upperBound
                    if data.count - bodyStart >= length { return (head, Data(data[bodyStart..<(bodyStart + length)])) }
                }
            }
            var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0, poll(&descriptor, 1, Int32(remaining * 1000)) > 0 else { return nil }
            var chunk = [UInt8](repeating: 0, count: 65_536)
            let count = chunk.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            if count <= 0 { return nil }
            data.append(contentsOf: chunk[0..<count])
        }
    }

    /// The body of a chunked message whose bytes after the head are `bytes`, or nil while its
    /// last chunk has not arrived.
    static func dechunked(_ bytes: Data) -> Data? {
        var body = Data()
        var rest = bytes[...]
        while let lineEnd = rest.range(of: Data("\r\n".utf8)) {
            let sizeText = String(decoding: rest[..<lineEnd.lowerBound], as: UTF8.self).split(separator: ";").first ?? ""
            guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16) else { return nil }
            let start = lineEnd.upperBound
            if size == 0 { return rest[start...].starts(with: Data("\r\n".utf8)) ? body : nil }
            guard rest.distance(from: start, to: rest.endIndex) >= size + 2 else { return nil }
            let chunkEnd = rest.index(start, offsetBy: size)
            body.append(rest[start..<chunkEnd])
            rest = rest[rest.index(chunkEnd, offsetBy: 2)...]
        }
        return nil
    }
}

private func Glibc_socket() -> Int32 {
    #if canImport(Darwin)
    socket(AF_INET, SOCK_STREAM, 0)
    #else
    socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    #endif
}

private func Glibc_send(_ socket: Int32, _ pointer: UnsafeRawPointer?, _ count: Int) -> Int {
    #if canImport(Darwin)
    send(socket, pointer, count, 0)
    #else
    send(socket, pointer, count, Int32(MSG_NOSIGNAL))
    #endif
}

private func closeSocket(_ socket: Int32) {
    _ = close(socket)
}
