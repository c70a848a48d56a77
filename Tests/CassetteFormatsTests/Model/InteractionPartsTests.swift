import Foundation
import Testing

@testable import CassetteFormats

/// The one walk over an interaction: every part that can hold a value, in order, with its place;
/// a change reaches the part it was made to, a streamed body keeps its chunks when it can.
@Suite struct InteractionPartsTests {
    static let interaction = Interaction(
        request: .init(
            method: "POST", url: "https://api.example.com/login?next=/home", headers: ["Authorization": "Bearer t", "Accept": "*/*"],
            body: .init(text: #"{"user":"ada"}"#)),
        challenges: [
            .init(
                method: "HTTPBasic", realm: "api", answer: .useCredential,
                response: .init(status: 401, headers: ["WWW-Authenticate": "Basic"], body: .init(text: "no")))
        ],
        response: .init(
            status: 200, url: "https://api.example.com/home", headers: ["Content-Type": "text/event-stream"],
            stream: .init(chunks: [.init(at: 0.1, data: Data("data: one\n\n".utf8)), .init(at: 0.2, data: Data("data: two\n\n".utf8))])),
        webSocket: .init(messages: [
            .text("hello", from: .client, at: 0), .close(code: 1000, from: .server, at: 0.1),
            .init(from: .server, at: 0.2, kind: .binary, data: Data([1, 2])),
        ]))

    @Test func everyPartIsVisitedInOrderWithItsPlace() {
        var visited: [String] = []
        Self.interaction.forEachPart(
            text: { part, text in visited.append("\(part.place)=\(text)") },
            body: { part, body in visited.append("\(part.place):\(body.data.count)") })
        #expect(
            visited == [
                "request.headers.Authorization=Bearer t", "request.headers.Accept=*/*",
                "request.url=https://api.example.com/login?next=/home", "request.body:14",
                "challenges[0].response.headers.WWW-Authenticate=Basic", "challenges[0].response.body:2",
                "response.headers.Content-Type=text/event-stream", "response.url=https://api.example.com/home", "response.body:22",
                "webSocket.messages[0]:5", "webSocket.messages[2]:2",
            ])
    }

    @Test func aSelectionVisitsOnlyItsSide() {
        var received: [String] = []
        Self.interaction.forEachPart(
            in: .received, urlsAndHeaders: false, text: { part, _ in received.append(part.place) },
            body: { part, _ in received.append(part.place + (part.isSent ? " sent" : " received")) })
        #expect(
            received == ["challenges[0].response.body received", "response.body received", "webSocket.messages[2] received"])
    }

    @Test func aChangeReachesEachPartAndAStreamKeepsItsChunks() {
        var changed = Self.interaction
        changed.changeParts(
            text: { _, text in text.replacingOccurrences(of: "a", with: "A") },
            body: { part, body in
                Interaction.Body(
                    Data(String(decoding: body.data, as: UTF8.self).replacingOccurrences(of: "o", with: "0").utf8),
                    contentType: part.contentType)
            })
        #expect(changed.request.url == "https://Api.exAmple.com/login?next=/home")
        #expect(changed.request.headers["Authorization"] == "BeArer t")
        #expect(changed.request.body.text == #"{"user":"ada"}"#, "no o in it: unchanged")
        #expect(changed.challenges[0].response.headers["WWW-Authenticate"] == "BAsic")
        #expect(changed.challenges[0].response.body.text == "n0")
        #expect(changed.response?.url == "https://Api.exAmple.com/home")
        #expect(changed.response?.stream?.chunks.map(\.data) == [Data("data: 0ne\n\n".utf8), Data("data: tw0\n\n".utf8)])
        #expect(changed.response?.stream?.chunks.map(\.at) == [0.1, 0.2])
        #expect(changed.webSocket?.messages.map(\.data) == [Data("hell0".utf8), Data(), Data([1, 2])])
    }
}
