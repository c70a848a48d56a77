import CassetteFormats
import CassetteTestSupport
import Foundation
import Testing

/// Streamed bodies: server-sent events read and written exactly, chunks cut at event ends, a
/// stream written event by event in JSON and with its timing in `.http` and HAR, read back
/// without loss, and wrong hand edits refused with their place.
@Suite struct StreamedBodyTests {
    static func sse(_ text: String) -> Data { Data(text.utf8) }

    /// An OpenAI-style chat completion stream: JSON data events, then `[DONE]`.
    static let chat = Interaction.StreamedBody(chunks: [
        .init(at: 0.21, event: ServerSentEvent(data: #"{"choices":[{"delta":{"content":"Hel"}}]}"#)),
        .init(at: 0.25, event: ServerSentEvent(event: "ping", id: "7", data: "still\nhere")),
        .init(at: 0.25, data: sse(": keep-alive\n\n")),
        .init(at: 0.31, event: ServerSentEvent(data: "[DONE]")),
    ])

    static func document(
        _ stream: Interaction.StreamedBody, contentType: String = "text/event-stream",
        error: Interaction.TransportError? = nil
    ) -> CassetteDocument {
        CassetteDocument(
            recordedWith: "Cassette tests",
            interactions: [
                Interaction(
                    request: .init(method: "POST", url: "https://api.example.com/v1/chat/completions"),
                    response: .init(status: 200, headers: ["Content-Type": contentType], stream: stream),
                    error: error,
                    timing: .init(firstByte: 0.2, duration: 0.32))
            ])
    }

    // MARK: Events

    @Test func anEventReadsAndWritesItsExactBytes() throws {
        let bytes = Self.sse("event: update\nid: 3\nretry: 1500\ndata: one\ndata:\ndata: three\n\n")
        let event = try #require(ServerSentEvent.canonical(bytes))
        #expect(event.fields == [.event("update"), .id("3"), .retry(1500), .data("one\n\nthree")])
        #expect(event.event == "update" && event.id == "3" && event.retry == 1500 && event.data == "one\n\nthree")
        #expect(event.serialized() == bytes)
        #expect(ServerSentEvent.canonical(Self.sse(": ping\n\n"))?.fields == [.comment("ping")])
        #expect(ServerSentEvent(data: " leading space").serialized() == Self.sse("data:  leading space\n\n"))
    }

    @Test(
        arguments: [
            "data:no space\n\n", "data: crlf\r\n\r\n", "data: a\n", "data: half", "unknown: x\n\n", "data: a\ndata: b\n\ndata: c\n\n",
            "data: a\nid: 1\ndata: b\n\n", "retry: soon\n\n", "retry: 007\n\n", "data: \n\n", "\n\n", "data\n\n",
        ] as [EscapedText])
    func bytesThatAreNotExactlyOneEventInTheWrittenLayoutAreNoEvent(_ text: EscapedText) {
        #expect(ServerSentEvent.canonical(Self.sse(text.value)) == nil)
    }

    @Test func eventsEndAtBlankLinesWhateverTheLineEnds() {
        #expect(ServerSentEvent.eventEnds(in: Self.sse("data: a\n\ndata: b\n\n")) == [9, 18])
        #expect(ServerSentEvent.eventEnds(in: Self.sse("data: a\r\n\r\ndata: b\r\rdata: c")) == [11, 20])
        #expect(ServerSentEvent.eventEnds(in: Self.sse("\n\ndata: a\n\n\n\ndata: b\n\n")) == [11, 22])
    }

    @Test func chunksAreCutWhereEventsEndAndAnEventArrivesWithItsLastByte() {
        let received = Interaction.StreamedBody(chunks: [
            .init(at: 0.1, data: Self.sse("data: a\n\nda")),
            .init(at: 0.2, data: Self.sse("ta: b\n\ndata: c\n\n")),
            .init(at: 0.3, data: Self.sse("data: d")),
        ])
        let split = received.splitAtEvents()
        #expect(
            split.chunks == [
                .init(at: 0.1, data: Self.sse("data: a\n\n")),
                .init(at: 0.2, data: Self.sse("data: b\n\n")),
                .init(at: 0.2, data: Self.sse("data: c\n\n")),
                .init(at: 0.3, data: Self.sse("data: d")),
            ])
        #expect(split.data == received.data)
    }

    // MARK: JSON

    @Test func JSONShowsEventsWithTheirArrivalAndInlineJSONData() throws {
        let text = String(decoding: try JSONCassetteCodec.encode(Self.document(Self.chat)), as: UTF8.self)
        let expected = """
                    "stream": {
                      "events": [
                        { "at": 0.21, "data": { "choices": [{ "delta": { "content": "Hel" } }] } },
                        { "at": 0.25, "event": "ping", "id": "7", "data": "still\\nhere" },
                        { "at": 0.25, "comment": "keep-alive" },
                        { "at": 0.31, "data": "[DONE]" }
                      ]
                    }
                  },
                  "timing": { "firstByte": 0.2, "duration": 0.32 }
            """
        #expect(text.contains(expected), "\(text)")
        #expect(!text.contains("\"body\""))
        let read = try JSONCassetteCodec.decode(Data(text.utf8))
        #expect(read == Self.document(Self.chat))
        #expect(read.interactions[0].response?.body.data == Self.chat.data)
    }

    @Test func otherStreamsAndChunksThatAreNoEventAreWrittenAsTheirBytes() throws {
        let ndjson = Interaction.StreamedBody(chunks: [
            .init(at: 0.2, data: Data("{\"progress\":50}\n".utf8)),
            .init(at: 1.1, data: Data("{\"progress\":100}\n".utf8)),
            .init(at: 1.2, data: Data([0x00, 0xFF])),
        ])
        let text = String(decoding: try JSONCassetteCodec.encode(Self.document(ndjson, contentType: "application/x-ndjson")), as: UTF8.self)
        #expect(
            text.contains(
                """
                        "stream": {
                          "chunks": [
                            { "at": 0.2, "text": "{\\"progress\\":50}\\n" },
                            { "at": 1.1, "text": "{\\"progress\\":100}\\n" },
                            { "at": 1.2, "base64": "AP8=" }
                          ]
                        }
                """), "\(text)")
        #expect(try JSONCassetteCodec.decode(Data(text.utf8)) == Self.document(ndjson, contentType: "application/x-ndjson"))

        let mixed = Interaction.StreamedBody(chunks: [
            .init(at: 0.2, data: Self.sse("data:x\r\n\r\n")), .init(at: 0.3, data: Self.sse("data: half")),
        ])
        let mixedText = String(decoding: try JSONCassetteCodec.encode(Self.document(mixed)), as: UTF8.self)
        #expect(mixedText.contains(#"{ "at": 0.2, "text": ["data:x\r\n", "\r\n"] }"#), "\(mixedText)")
        #expect(try JSONCassetteCodec.decode(Data(mixedText.utf8)) == Self.document(mixed))
    }

    @Test func aHandWrittenStreamReadsAsItsEvents() throws {
        let file = """
            {"version": 1, "interactions": [{"request": {"method": "GET", "url": "https://a.example/feed"},
              "response": {"status": 200, "headers": {"Content-Type": "text/event-stream"}, "stream": {"events": [
                {"at": 0.1, "data": "one"}, {"at": 0.5, "id": "2", "data": {"n": 2}}, {"at": 0.9, "text": "data: raw\\n\\n"}]}},
              "error": {"code": "networkConnectionLost"}}]}
            """
        let interaction = try JSONCassetteCodec.decode(Data(file.utf8)).interactions[0]
        #expect(interaction.response?.body.data == Self.sse("data: one\n\nid: 2\ndata: {\"n\":2}\n\ndata: raw\n\n"))
        #expect(interaction.response?.stream?.chunks.map(\.at) == [0.1, 0.5, 0.9])
        #expect(interaction.error?.code.name == "networkConnectionLost")
    }

    @Test(arguments: [
        (
            #"{"events": [{"at": 0.3, "data": "a"}, {"at": 0.2, "data": "b"}]}"#,
            #"edited.json:3:136: error: interactions[0].response.stream.events[1].at: this chunk arrives at 0.2 s, before the one above it (0.3 s)"#
        ),
        (
            #"{"events": [{"at": 0.05, "data": "a"}]}"#,
            #"interactions[0].response.stream.events[0].at: this chunk arrives at 0.05 s, before the response head (timing.firstByte 0.1 s)"#
        ),
        (
            #"{"events": [{"at": 0.3, "dat": "a"}]}"#,
            #"interactions[0].response.stream.events[0].dat: unknown field "dat" (did you mean "data"?)"#
        ),
        (
            #"{"events": [{"at": 0.3, "event": "a\nb"}]}"#,
            #"interactions[0].response.stream.events[0].event: "event" is one line of the stream: it cannot hold a line break"#
        ),
        (
            #"{"events": [{"at": 0.3, "retry": -1}]}"#,
            #"interactions[0].response.stream.events[0].retry: "retry" is a number of milliseconds, zero or more, found -1"#
        ),
        (
            #"{"events": [{"at": 0.3, "data": 42}]}"#,
            #"interactions[0].response.stream.events[0].data: expected an event's data as a string, or as a JSON object or array, found 42"#
        ),
        (
            #"{"events": [{"at": 0.3, "data": "a", "text": "b"}]}"#,
            #"interactions[0].response.stream.events[0]: a chunk holds either an event's fields or its bytes"#
        ),
        (#"{"events": [{"data": "a"}]}"#, #"interactions[0].response.stream.events[0]: missing required field "at""#),
        (#"{"events": []}"#, #"interactions[0].response.stream: a stream needs at least one chunk"#),
        (
            #"{"chunks": [{"at": 0.3, "data": "a"}]}"#,
            #"interactions[0].response.stream.chunks[0].data: "data" is a field of a server-sent event"#
        ),
        (
            #"{"events": [{"at": 0.3, "data": "a"}], "chunks": []}"#,
            #"interactions[0].response.stream: a stream is written as "events", "chunks" or "envelopes", one of them"#
        ),
    ])
    func aWrongHandEditSaysWhereAndWhat(_ stream: String, _ expected: String) {
        let file = """
            {"version": 1, "interactions": [{"request": {"method": "GET", "url": "https://a.example/feed"},
              "timing": {"firstByte": 0.1, "duration": 1},
              "response": {"status": 200, "headers": {"Content-Type": "text/event-stream"}, "stream": \(stream)}}]}
            """
        #expect {
            try JSONCassetteCodec.decode(Data(file.utf8), file: "edited.json")
        } throws: { error in
            let text = (error as? CassetteFormatError)?.description ?? ""
            return text.contains(expected) && text.hasPrefix("edited.json:")
        }
    }

    @Test func aResponseHasABodyOrAStreamNotBoth() {
        let file = """
            {"version": 1, "interactions": [{"request": {"method": "GET", "url": "https://a.example/feed"},
              "response": {"status": 200, "body": "x", "stream": {"chunks": [{"at": 0, "text": "x"}]}}}]}
            """
        #expect {
            try JSONCassetteCodec.decode(Data(file.utf8), file: "edited.json")
        } throws: { error in
            (error as? CassetteFormatError)?.description
                == #"edited.json:2:39: error: interactions[0].response.body: a response has a "body" or a "stream", not both: remove one"#
        }
    }

    @Test func settingTheBodyReplacesTheStream() {
        var response = Interaction.Response(status: 200, stream: Self.chat)
        #expect(response.body.data == Self.chat.data)
        response.body = .init(text: "whole")
        #expect(response.stream == nil && response.body.data == Data("whole".utf8))
    }

    // MARK: Other formats

    @Test(arguments: ["json", "http", "har"])
    func everyFormatKeepsTheChunksAndTheirTiming(_ format: String) throws {
        let binary = Interaction.StreamedBody(chunks: [
            .init(at: 0.2, data: Data([0x00, 0x01])), .init(at: 0.25, data: Data("tail\n".utf8)),
        ])
        for document in [
            Self.document(Self.chat), Self.document(Self.chat, error: .init(code: .networkConnectionLost)),
            Self.document(binary, contentType: "application/octet-stream"),
        ] {
            let codec = try #require(CassetteFormat(fileExtension: format))
            let read = try codec.decode(try codec.encode(document), file: "x.\(format)")
            #expect(read.interactions[0].response?.stream == document.interactions[0].response?.stream, "\(format)")
            if format != "har" { #expect(read == document, "\(format)") }
        }
    }

    @Test func HTTPMessagesGiveEachChunksArrivalAndSize() throws {
        let text = String(decoding: try HTTPMessageCassetteCodec.encode(Self.document(Self.chat)), as: UTF8.self)
        #expect(text.contains("### firstByte=0.2 duration=0.32 stream=0.21:49,0.25:42,0.25:14,0.31:14\n"), "\(text)")
        #expect(text.contains("\n\ndata: {\"choices\":[{\"delta\":{\"content\":\"Hel\"}}]}\n\nevent: ping\n"))
        let wrong = text.replacingOccurrences(of: "0.31:14", with: "0.31:15")
        #expect {
            try HTTPMessageCassetteCodec.decode(Data(wrong.utf8), file: "feed.http")
        } throws: { error in
            (error as? CassetteFormatError)?.description.contains(
                "feed.http:4:1: error: interactions[0].response.stream: the stream's chunks hold 120 bytes but the response body holds 119")
                == true
        }
        let backwards = text.replacingOccurrences(of: "0.31:14", with: "0.24:14")
        #expect {
            try HTTPMessageCassetteCodec.decode(Data(backwards.utf8), file: "feed.http")
        } throws: { error in
            (error as? CassetteFormatError)?.description.contains("this chunk arrives at 0.24 s, before the one above it (0.25 s)") == true
        }
    }

    @Test func HARKeepsTheTextAndTheTimingInAnExtensionField() throws {
        let har = try HARCassetteCodec.encode(Self.document(Self.chat))
        let root = try #require(try JSONSerialization.jsonObject(with: har) as? [String: Any])
        let entries = try #require((root["log"] as? [String: Any])?["entries"] as? [[String: Any]])
        let content = try #require((entries[0]["response"] as? [String: Any])?["content"] as? [String: Any])
        #expect(content["text"] as? String == String(decoding: Self.chat.data, as: UTF8.self))
        let chunks = try #require(content["_chunks"] as? [[String: Double]])
        #expect(chunks == [["at": 0.21, "size": 49], ["at": 0.25, "size": 42], ["at": 0.25, "size": 14], ["at": 0.31, "size": 14]])
        let edited = String(decoding: har, as: UTF8.self).replacingOccurrences(of: #""size": 49"#, with: #""size": 48"#)
        #expect {
            try HARCassetteCodec.decode(Data(edited.utf8), file: "x.har")
        } throws: { error in
            (error as? CassetteFormatError)?.description.contains(
                "log.entries[0].response.content._chunks: the chunks hold 118 bytes but the response body holds 119; their sizes add up to the body"
            ) == true
        }
    }
}
