import Cassette
import Foundation

/// What `cassette fault` does to one interaction: a pure change of its value, checked before
/// anything is written. `Content-Length` and timings follow the change, so the result replays as
/// the fault it names and `cassette lint` has nothing to say about it.
struct FaultEdit {
    /// `--status`: answer with this status (a failure written in place of the answer is removed).
    var status: Int?
    /// `--body`: answer with these bytes (a stream becomes this body, in one piece).
    var body: Data?
    /// `--header`: set these response header fields, replacing any of the same name.
    var headers: [(name: String, value: String)] = []
    /// `--error`: fail with this code instead of a response, or (with a cut) the error that cuts.
    var error: Interaction.TransportError.Code?
    /// `--cut-after-bytes`: keep the response, lose the connection after this many body bytes.
    var cutAfterBytes: Int?
    /// `--cut-after-events`: keep this many events (or chunks) of a streamed response, then lose the connection.
    var cutAfterEvents: Int?
    /// `--latency`: replay after these seconds, whatever latency the test chooses.
    var latency: Latency?
    /// `--rpc-status`: fail a Connect or gRPC-Web call with this status, as its protocol does (``RPCFailure``).
    var rpcStatus: RPCStatusCode?
    /// `--rpc-message`: the status's message.
    var rpcMessage: String?

    /// The error a cut ends with when `--error` names none: the connection was lost.
    static let cutError = Interaction.TransportError.Code.networkConnectionLost

    var isEmpty: Bool {
        status == nil && body == nil && headers.isEmpty && error == nil && cutAfterBytes == nil && cutAfterEvents == nil
            && latency == nil && rpcStatus == nil && rpcMessage == nil
    }

    /// Why these options cannot go together, or nil.
    var conflict: String? {
        if rpcMessage != nil, rpcStatus == nil { return "--rpc-message goes with --rpc-status" }
        if rpcStatus != nil, status != nil || body != nil || error != nil || cutAfterBytes != nil || cutAfterEvents != nil {
            return "--rpc-status writes the call's status, body and Content-Type as its protocol sends a failure; give it alone "
                + "(with --rpc-message, --header or --latency)"
        }
        if cutAfterBytes != nil, cutAfterEvents != nil {
            return "give --cut-after-bytes or --cut-after-events, not both"
        }
        let answers = status != nil || body != nil || !headers.isEmpty
        if error != nil, cutAfterBytes == nil, cutAfterEvents == nil, answers {
            return "--error alone replaces the response with a failure, so --status, --body and --header have nothing to change; "
                + "add --cut-after-bytes or --cut-after-events for a response that fails part-way"
        }
        if body != nil, cutAfterEvents != nil {
            return "--body replaces a stream with one body, so --cut-after-events has no events to cut; use --cut-after-bytes"
        }
        return nil
    }

    /// `interaction` with the fault, or why it cannot have it.
    func applied(to interaction: Interaction) -> Result<Interaction, FaultProblem> {
        var changed = interaction
        if interaction.webSocket != nil, status != nil || body != nil || cutAfterBytes != nil || cutAfterEvents != nil || error != nil {
            return .failure(
                FaultProblem(
                    "it is a WebSocket conversation; cut it by editing its messages (end the list with a close, or without one to drop "
                        + "the connection)"))
        }
        if let rpcStatus {
            guard let callProtocol = RPCFailure.callProtocol(of: interaction.request, interaction.response) else {
                let type = interaction.response?.headers["Content-Type"] ?? interaction.request.headers["Content-Type"] ?? "none"
                return .failure(
                    FaultProblem(
                        "it is not a Connect or gRPC-Web call (its Content-Type is \(type)): --rpc-status writes a status as those "
                            + "protocols send one; use --status for an HTTP status"))
            }
            guard
                let response = RPCFailure.response(
                    rpcStatus, message: rpcMessage, callProtocol: callProtocol, replacing: interaction.response)
            else {
                return .failure(FaultProblem("a Connect call that succeeds sends no status; give the code of a failure (unavailable, …)"))
            }
            changed.response = response
            changed.error = nil
        }
        if let status { answer(&changed, status: status) }
        if let body {
            answer(&changed, status: nil)
            let contentType = changed.response?.headers["Content-Type"]
            changed.response?.body = Interaction.Body(body, contentType: contentType)
        }
        if !headers.isEmpty {
            answer(&changed, status: nil)
            for header in headers { changed.response?.headers.set(header.name, header.value) }
        }
        if body != nil || !headers.isEmpty, let response = changed.response, response.headers["Content-Length"] != nil,
            !response.headers.contains("Content-Encoding"), !headers.contains(where: { $0.name.lowercased() == "content-length" })
        {
            changed.response?.headers.set("Content-Length", String(response.body.data.count))
        }
        if let cutAfterBytes {
            switch cut(&changed, afterBytes: cutAfterBytes) {
            case .success: break
            case .failure(let problem): return .failure(problem)
            }
        } else if let cutAfterEvents {
            switch cut(&changed, afterEvents: cutAfterEvents) {
            case .success: break
            case .failure(let problem): return .failure(problem)
            }
        } else if let error {
            changed.response = nil
            changed.error = Interaction.TransportError(code: error)
        }
        if let latency { changed.latency = latency }
        // Marked, so the fault keeps replaying when the tape goes live and `check --live` skips it.
        changed.scenario = summary
        return .success(changed)
    }

    /// Makes the interaction answer with a response: the one it has (its error removed), or a new
    /// one with `status` (200 when nil) in place of a failure.
    private func answer(_ interaction: inout Interaction, status: Int?) {
        if interaction.response == nil { interaction.response = Interaction.Response(status: status ?? 200) }
        if let status { interaction.response?.status = status }
        if cutAfterBytes == nil, cutAfterEvents == nil { interaction.error = nil }
    }

    private func cut(_ interaction: inout Interaction, afterBytes count: Int) -> Result<Void, FaultProblem> {
        guard let response = interaction.response else {
            return .failure(FaultProblem("it has no response to cut; give --status (and --body) for one first, or --error alone"))
        }
        let size = response.body.data.count
        guard count <= size else {
            return .failure(FaultProblem("its response body holds \(size) bytes, fewer than --cut-after-bytes \(count)"))
        }
        interaction.error = Interaction.TransportError(code: error ?? Self.cutError, afterBytes: count)
        // The error comes when the last byte that arrived did, as the body arrived evenly.
        if let timing = interaction.timing, size > 0 {
            let span = timing.duration - timing.firstByte
            interaction.timing?.duration = Self.rounded(timing.firstByte + span * Double(count) / Double(size))
        }
        return .success(())
    }

    private func cut(_ interaction: inout Interaction, afterEvents count: Int) -> Result<Void, FaultProblem> {
        guard let response = interaction.response, let stream = response.stream else {
            return .failure(
                FaultProblem(
                    "its response is not a stream (it has no \"stream\" of events or chunks); use --cut-after-bytes for a body"))
        }
        let noun = stream.chunks.first?.event != nil ? "events" : "chunks"
        guard count < stream.chunks.count else {
            return .failure(
                FaultProblem("its stream has \(stream.chunks.count) \(noun), so --cut-after-events \(count) would cut nothing"))
        }
        let kept = Array(stream.chunks.prefix(count))
        if kept.isEmpty {
            interaction.response?.body = .empty
        } else {
            interaction.response?.stream = Interaction.StreamedBody(chunks: kept)
        }
        interaction.error = Interaction.TransportError(code: error ?? Self.cutError)
        // The connection is lost when the last event that arrived did.
        if let timing = interaction.timing {
            interaction.timing?.duration = max(timing.firstByte, kept.last?.at ?? timing.firstByte)
        }
        return .success(())
    }

    /// Seconds to the millisecond, as recordings store them.
    private static func rounded(_ seconds: TimeInterval) -> TimeInterval {
        (seconds * 1000).rounded() / 1000
    }

    /// One line saying what the fault does, for the command's output.
    var summary: String {
        var parts: [String] = []
        if let status { parts.append("status \(status)") }
        if let body { parts.append("a body of \(body.count) bytes") }
        for header in headers { parts.append("\(header.name): \(header.value)") }
        let cutCode = error ?? Self.cutError
        let cutName = cutCode.name ?? String(cutCode.rawValue)
        if let cutAfterBytes {
            parts.append("\(cutName) after \(cutAfterBytes) bytes")
        } else if let cutAfterEvents {
            parts.append("\(cutName) after \(cutAfterEvents) events")
        } else if let error {
            parts.append("fails with \(error.description)")
        }
        if let latency { parts.append("latency \(latency)") }
        if let rpcStatus { parts.append("rpc status \(rpcStatus)" + (rpcMessage.map { " \"\($0)\"" } ?? "")) }
        return parts.joined(separator: ", ")
    }
}

/// Why an interaction cannot take a fault, said of it ("interaction 2 (GET …): MESSAGE").
struct FaultProblem: Error {
    var message: String

    init(_ message: String) {
        self.message = message
    }
}
