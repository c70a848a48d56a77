import Foundation

/// Decodes `data` as `format`: a decoder may throw but never crash, and what decodes must
/// round-trip through every format (`CassetteFormat.roundTripProblem`), or the target traps.
func fuzzDecode<Bytes: DataProtocol>(_ data: Bytes, as format: CassetteFormat) {
    if let problem = format.roundTripProblem(of: Data(data)) {
        // Optimised builds drop a precondition's message: say it first.
        FileHandle.standardError.write(Data("round trip broken: \(problem)\n".utf8))
        preconditionFailure(problem)
    }
}

/// A JSON cassette read with its `"json"` bodies as compact bytes is the one read from their
/// trees, or both fail with the same error (`JSONCassetteCodec.decodeFromTrees`).
func fuzzCompactBodies(_ data: Data) {
    let compact = Result { () throws(CassetteFormatError) in try JSONCassetteCodec.decode(data) }
    let trees = Result { () throws(CassetteFormatError) in try JSONCassetteCodec.decodeFromTrees(data) }
    switch (compact, trees) {
    case (.success(let a), .success(let b)) where a == b: return
    case (.failure(let a), .failure(let b)) where a == b: return
    default:
        let problem = "compact bodies read otherwise than trees: \(compact) against \(trees)"
        FileHandle.standardError.write(Data((problem + "\n").utf8))
        preconditionFailure(problem)
    }
}

/// A message the frame reader produced, written as a frame by the other end and read again by
/// the same role: it must come back equal.
func fuzzRoundTrip(_ message: WebSocketFrameReader.Message, readBy role: WebSocketFrameReader.Role) {
    let frame: WebSocketFrame
    switch message {
    case .text(let text): frame = WebSocketFrame(opcode: .text, payload: Data(text.utf8))
    case .binary(let data): frame = WebSocketFrame(opcode: .binary, payload: data)
    case .ping(let data): frame = WebSocketFrame(opcode: .ping, payload: data)
    case .pong(let data): frame = WebSocketFrame(opcode: .pong, payload: data)
    case .close(let code, let reason):
        frame = WebSocketFrame(opcode: .close, payload: WebSocketFrame.closePayload(code: code, reason: reason))
    }
    var reader = WebSocketFrameReader(role: role, maximumMessageSize: 65_536)
    reader.append(frame.encoded(mask: role == .server ? [1, 2, 3, 4] : nil))
    guard (try? reader.next()) == message else { preconditionFailure("a WebSocket message did not read back the same: \(message)") }
}

/// Compiles `pattern` as a rules file's body pattern and matches it over `text`: refused with a
/// reason, or matched (every match inside the text) or stopped, within its budget and a second of
/// slack (sanitized, on a busy machine), or the target traps.
func fuzzBodyPattern(_ pattern: String, on text: String) {
    let compiled: BodyPattern
    do throws(BodyPattern.Problem) {
        compiled = try BodyPattern(pattern)
    } catch {
        if error.reason.isEmpty { preconditionFailure("a refused pattern carries no reason: \(pattern)") }
        return
    }
    let start = DispatchTime.now().uptimeNanoseconds
    let matches = compiled.matches(in: text)
    let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    let allowed = BodyPattern.budget(length: text.utf16.count) + 1
    if seconds > allowed {
        FileHandle.standardError.write(Data("pattern \(pattern) ran \(seconds) s, past \(allowed) s\n".utf8))
        preconditionFailure("a body pattern ran past its budget")
    }
    let whole = NSRange(text.startIndex..., in: text)
    for match in matches ?? [] where NSMaxRange(match.range) > NSMaxRange(whole) {
        preconditionFailure("a match lies outside the text")
    }
}
