import Cassette
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// How the server takes connections: the accept loop admits each (up to `maxConnections`, else a
// 503) on a thread of its own, and a connection's loop reads its requests one after another.
extension TapeServer {
    func acceptLoop() {
        defer {
            listener.close()
            acceptEnded.signal()
        }
        while true {
            let descriptor: Int32
            switch listener.next() {
            case .connection(let accepted):
                descriptor = accepted
            case .again:
                continue
            case .exhausted:
                // Out of descriptors: wait for some connections to end rather than spin.
                usleep(10_000)
                if state.withLock({ $0.stopped }) { return }
                continue
            case .stopped:
                return
            }
            let connection = ServerConnection(socket: descriptor)
            let admitted = state.withLock { state -> Bool? in
                if state.stopped { return nil }
                guard state.connections.count < options.maxConnections else { return false }
                state.connections[ObjectIdentifier(connection)] = connection
                return true
            }
            switch admitted {
            case nil:
                connection.close()
                return
            case false?:
                writeRefusal(
                    WireRequest.Refusal(status: 503, reason: "the server already serves \(options.maxConnections) connections"),
                    to: connection)
                connection.close()
            case true?:
                let thread = Thread { [weak self] in
                    guard let self else { return connection.close() }
                    serve(connection)
                    connection.close()
                    state.withLock { _ = $0.connections.removeValue(forKey: ObjectIdentifier(connection)) }
                    finished.lock()
                    finished.broadcast()
                    finished.unlock()
                }
                thread.stackSize = 512 * 1024
                thread.start()
            }
        }
    }

    /// Requests on one connection, one after another, until it closes. A `CONNECT` turns the rest
    /// of the connection into a tunnel (``tunnel(_:on:)``), whose requests are served here too,
    /// each for `tunnel`'s origin.
    func serve(_ connection: ServerConnection, tunnel: TunnelTarget? = nil) {
        while !state.withLock({ $0.stopped }) {
            let outcome = WireRequest.read(from: connection, limits: options.limits.wire) {
                connection.write(Array("HTTP/1.1 100 Continue\r\n\r\n".utf8))
            }
            switch outcome {
            case .gone:
                return
            case .refused(let refusal):
                writeRefusal(refusal, to: connection)
                return
            case .request(let request) where request.method == "CONNECT":
                guard tunnel == nil else {
                    writeRefusal(.init(status: 400, reason: "a CONNECT inside a tunnel: send the requests themselves"), to: connection)
                    return
                }
                return self.tunnel(request, on: connection)
            case .request(let request):
                guard answer(request, on: connection, tunnel: tunnel), request.keepsAlive else { return }
            }
        }
    }
}
