import CassetteTestSupport
import Foundation
import Testing

@testable import Cassette
@testable import CassetteTools

/// The one comparison of two interactions names every stored member: each member of the canonical
/// every-member cassette, changed in turn, is a difference at its place — and a member added to
/// the model later, which this table does not change, fails the test by name.
@Suite struct InteractionComparisonTests {
    static let everyMember = PackagePaths.root.appendingPathComponent("Tests/CassetteFormatsTests/Fixtures/Canonical/every-member.json")

    /// One change: the interaction (by index in the canonical file) it is made to, and the place
    /// the comparison must name.
    struct Change: Sendable, CustomStringConvertible {
        var member: String
        var interaction: Int
        var place: String
        var change: @Sendable (inout Interaction) -> Void

        var description: String { member }
    }

    static let changes: [Change] = [
        Change(member: "Interaction.recordedAt", interaction: 0, place: "recordedAt") { $0.recordedAt = Date(timeIntervalSince1970: 0) },
        Change(member: "Request.method", interaction: 0, place: "request.method") { $0.request.method = "PUT" },
        Change(member: "Request.url", interaction: 0, place: "request.url") { $0.request.url += "/more" },
        Change(member: "Request.headers", interaction: 0, place: "request.headers.X-New") { $0.request.headers.add("X-New", "1") },
        Change(member: "Request.body", interaction: 1, place: "request.body") { $0.request.body = Interaction.Body(text: "other") },
        Change(member: "Interaction.challenges", interaction: 0, place: "challenges") { $0.challenges.removeAll() },
        Change(member: "Challenge.method", interaction: 0, place: "challenges[0].method") { $0.challenges[0].method = "HTTPDigest" },
        Change(member: "Challenge.realm", interaction: 0, place: "challenges[0].realm") { $0.challenges[0].realm = nil },
        Change(member: "Challenge.answer", interaction: 0, place: "challenges[0].answer") {
            $0.challenges[0].answer = .cancelAuthenticationChallenge
        },
        Change(member: "Challenge.response", interaction: 0, place: "challenges[0].response.headers.WWW-Authenticate") {
            $0.challenges[0].response.headers["WWW-Authenticate"] = #"Basic realm="other""#
        },
        Change(member: "Response.status", interaction: 0, place: "response.status") { $0.response?.status = 503 },
        Change(member: "Response.url", interaction: 0, place: "response.url") { $0.response?.url = nil },
        Change(member: "Response.headers", interaction: 0, place: "response.headers.X-New") { $0.response?.headers.add("X-New", "1") },
        Change(member: "Response.storedBody", interaction: 0, place: "response.body.$.id") {
            $0.response?.body = Interaction.Body(Data(#"{"id":8}"#.utf8), contentType: "application/json")
        },
        Change(member: "Response.storedStream", interaction: 2, place: "response.stream") {
            let whole = $0.response?.body ?? .empty
            $0.response?.body = whole  // the same bytes, arriving in one piece
        },
        Change(member: "StreamedBody.chunks", interaction: 2, place: "response.stream") { $0.response?.stream?.chunks.removeLast() },
        Change(member: "Chunk.at", interaction: 2, place: "response.stream.chunks[1].at") { $0.response?.stream?.chunks[1].at = 0.25 },
        Change(member: "Chunk.data", interaction: 2, place: "response.stream.chunks[0]") {
            // The same whole body, cut elsewhere: "one" + "[1]" becomes "on" + "e[1]".
            guard var chunks = $0.response?.stream?.chunks else { return }
            chunks[0].data = Data("on".utf8)
            chunks[1].data = Data("e[1]".utf8)
            $0.response?.stream = Interaction.StreamedBody(chunks: chunks)
        },
        Change(member: "Interaction.error", interaction: 0, place: "error") { $0.error = .init(code: .timedOut) },
        Change(member: "TransportError.code", interaction: 3, place: "error") { $0.error?.code = .timedOut },
        Change(member: "TransportError.afterBytes", interaction: 3, place: "error") { $0.error?.afterBytes = 1 },
        Change(member: "Interaction.timing", interaction: 0, place: "timing") { $0.timing = nil },
        Change(member: "Timing.firstByte", interaction: 0, place: "timing.firstByte") { $0.timing?.firstByte = 0.09 },
        Change(member: "Timing.duration", interaction: 0, place: "timing.duration") { $0.timing?.duration = 2 },
        Change(member: "Interaction.latency", interaction: 3, place: "latency") { $0.latency = .fixed(firstByte: 2, duration: 2) },
        Change(member: "Interaction.scenario", interaction: 3, place: "scenario") { $0.scenario = "status 503" },
        Change(member: "Interaction.webSocket", interaction: 4, place: "webSocket") { $0.webSocket = nil },
        Change(member: "WebSocketConversation.messages", interaction: 4, place: "webSocket") { $0.webSocket?.messages.removeLast() },
        Change(member: "WebSocketMessage.from", interaction: 4, place: "webSocket.messages[2].from") {
            $0.webSocket?.messages[2].from = .client
        },
        Change(member: "WebSocketMessage.at", interaction: 4, place: "webSocket.messages[1].at") { $0.webSocket?.messages[1].at = 0.5 },
        Change(member: "WebSocketMessage.kind", interaction: 4, place: "webSocket.messages[1].kind") {
            $0.webSocket?.messages[1].kind = .text
        },
        Change(member: "WebSocketMessage.data", interaction: 4, place: "webSocket.messages[0]") {
            $0.webSocket?.messages[0].data = Data(#"{"hello":2}"#.utf8)
        },
        Change(member: "WebSocketMessage.code", interaction: 4, place: "webSocket.messages[4].code") {
            $0.webSocket?.messages[4].code = 1011
        },
    ]

    /// Members that hold other members, each of which is in the table. (A body, the header fields
    /// and a latency are compared whole: a body by its bytes, which is its equality too.)
    static let containers: Set<String> = ["Interaction.request", "Interaction.response"]

    static func canonical() throws -> [Interaction] {
        try CassetteFile.read(everyMember).interactions
    }

    @Test(arguments: changes)
    func eachMemberChangedIsADifferenceAtItsPlace(_ change: Change) throws {
        let old = try Self.canonical()[change.interaction]
        var new = old
        change.change(&new)
        #expect(new != old, "the table's change to \(change.member) changes nothing")
        let differences = InteractionComparison.differences(from: old, to: new)
        #expect(differences.map(\.name).contains(change.place), "\(change.member): \(differences.map(\.description))")
        // And the same member of every interaction compares equal to itself.
        #expect(InteractionComparison.differences(from: new, to: new) == [])
    }

    /// Every stored member of the model, found by reflection over the canonical file, is changed by
    /// the table above (or is a container or not data): a member added to `Interaction` or its
    /// parts without a place in the comparison fails here, by name.
    @Test func theTableCoversEveryStoredMember() throws {
        var members = Set<String>()
        for interaction in try Self.canonical() { Self.collectMembers(of: interaction, into: &members) }
        let covered = Set(Self.changes.map(\.member)).union(Self.containers)
        #expect(members.subtracting(covered).sorted() == [], "members without a change in the table")
        #expect(covered.subtracting(members).subtracting(Self.containers).sorted() == [], "the table names members that do not exist")
    }

    /// `Type.member` for every stored member of the model types inside `value`.
    static func collectMembers(of value: Any, into members: inout Set<String>) {
        let modelTypes: Set<String> = [
            "Interaction", "Request", "Challenge", "Response", "TransportError", "Timing", "WebSocketConversation",
            "WebSocketMessage", "StreamedBody", "Chunk",
        ]
        let mirror = Mirror(reflecting: value)
        if mirror.displayStyle == .optional || mirror.displayStyle == .collection {
            for child in mirror.children { collectMembers(of: child.value, into: &members) }
            return
        }
        let typeName = String(describing: mirror.subjectType).components(separatedBy: ".").last ?? ""
        guard modelTypes.contains(typeName) else { return }
        for child in mirror.children {
            guard let label = child.label else { continue }
            members.insert("\(typeName).\(label)")
            collectMembers(of: child.value, into: &members)
        }
    }

    // MARK: What readers make of it

    /// A latency written by hand is a change `cassette diff` shows (it replaces the recorded
    /// timing on replay), and re-recording does not ignore it.
    @Test func aHandWrittenLatencyIsAChange() throws {
        let old = try Self.canonical()[0]
        var new = old
        new.latency = .fixed(firstByte: 2, duration: 2)
        let diff = CassetteDiff(old: [old], new: [new])
        #expect(diff.changed.map(\.changes) == [[CassetteDiff.Change(field: "latency", old: "recorded", new: "fixed:2,2")]])
        #expect(!IgnoredChanges.default.isUnchanged(new, comparedWith: old))
    }

    /// A conversation that says something else is a change; re-recording keeps only a conversation
    /// whose messages are the same (times within the tolerance).
    @Test func aConversationThatChangedIsAChange() throws {
        let old = try Self.canonical()[4]
        var retimed = old
        retimed.webSocket?.messages[1].at += 0.01
        #expect(IgnoredChanges.default.isUnchanged(retimed, comparedWith: old))
        var changed = old
        changed.webSocket?.messages[0].data = Data(#"{"hello":2}"#.utf8)
        #expect(!IgnoredChanges.default.isUnchanged(changed, comparedWith: old))
        let diff = CassetteDiff(old: [old], new: [changed])
        #expect(
            diff.changed.first?.changes.map(\.description) == [
                #"webSocket.messages[0]: "{\"hello\":1}" (11 bytes) → "{\"hello\":2}" (11 bytes)"#
            ])
        #expect(diff.unchanged == 0)
    }

    /// What re-recording ignores: `recordedAt`, volatile header fields, times within the tolerance,
    /// ignored JSON paths — and nothing else.
    @Test func ignoredChangesFilterTheList() throws {
        let old = try Self.canonical()[0]
        var new = old
        new.recordedAt = Date(timeIntervalSince1970: 0)
        new.response?.headers.add("Date", "Fri, 27 Nov 2026 10:00:00 GMT")
        new.timing?.firstByte += 0.01
        new.response?.body = Interaction.Body(Data(#"{"id":8}"#.utf8), contentType: "application/json")
        let differences = InteractionComparison.differences(from: old, to: new)
        #expect(
            differences.map(\.name) == ["recordedAt", "response.headers.Date", "response.body.$.id", "timing.firstByte"])
        #expect(differences.filter { !IgnoredChanges.default.ignores($0) }.map(\.name) == ["response.body.$.id"])
        #expect(IgnoredChanges.default.addingJSONPaths("id").isUnchanged(new, comparedWith: old))
        // The same JSON written otherwise is a change of the bytes the client gets.
        var spaced = old
        spaced.response?.body = Interaction.Body(Data(#"{ "id": 7 }"#.utf8), contentType: "application/json")
        #expect(InteractionComparison.differences(from: old, to: spaced).map(\.name) == ["response.body"])
    }
}
