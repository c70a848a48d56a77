import Foundation
import Testing

@testable import Cassette

/// Where a task's body is (``RequestBody/source(_:)``), for every task kind and every answer a
/// platform gives: the Apple answers are decided by the same pure function the Linux suite runs.
@Suite struct BodySourceTests {
    typealias Evidence = RequestBody.Evidence

    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var evidence: Evidence
        var source: RequestBody.Source
        var testDescription: String { name }
    }

    static func evidence(
        upload: Bool = false, body: Bool = false, stream: Bool = false, callerGaveData: Bool = false,
        expected: Int64 = -1, kept: TaskInternals.KnownBody.Kind = .notFound
    ) -> Evidence {
        Evidence(
            isUploadTask: upload, requestHasBody: body, requestHasStream: stream, callerGaveData: callerGaveData,
            expectedToSend: expected, taskKeeps: kept)
    }

    static let cases: [Case] = [
        // Data tasks and data(for:), both platforms.
        Case(name: "data task without a body", evidence: evidence(), source: .none),
        Case(name: "Linux: data task with httpBody", evidence: evidence(body: true), source: .request),
        Case(name: "a caller's own httpBodyStream", evidence: evidence(stream: true), source: .stream(.requestStream)),
        Case(
            name: "Apple: httpBody the platform turned into a stream", evidence: evidence(stream: true, callerGaveData: true),
            source: .stream(.request)),
        // Upload tasks on Linux: FoundationNetworking keeps the body in the task.
        Case(name: "Linux: upload(from: data)", evidence: evidence(upload: true, expected: 5, kept: .data), source: .taskData),
        Case(name: "Linux: upload(from: empty data)", evidence: evidence(upload: true, expected: 0, kept: .empty), source: .taskData),
        Case(name: "Linux: upload(fromFile:)", evidence: evidence(upload: true, expected: 9, kept: .file), source: .taskFile),
        Case(name: "Linux: upload task with a kept stream", evidence: evidence(upload: true, kept: .stream), source: .taskStream),
        Case(name: "Linux: uploadTask(withStreamedRequest:)", evidence: evidence(upload: true, kept: .absent), source: .delegateStream),
        Case(
            name: "Linux: a FoundationNetworking that hides the body", evidence: evidence(upload: true, expected: 5), source: .unreachable),
        // Upload tasks on Apple platforms: only the request is visible.
        Case(
            name: "Apple: upload(from: data) as the platform's stream", evidence: evidence(upload: true, stream: true, expected: 5),
            source: .stream(.upload)),
        Case(
            name: "Apple: upload(from: empty data) as a stream", evidence: evidence(upload: true, stream: true, expected: 0),
            source: .stream(.upload)),
        Case(
            name: "Apple: streamed upload, length unknown", evidence: evidence(upload: true, stream: true, expected: -1),
            source: .stream(.uploadStream)),
        Case(
            name: "Apple: upload whose body shows as httpBody", evidence: evidence(upload: true, body: true, expected: 5), source: .request),
        Case(name: "Apple: upload body out of reach, length known", evidence: evidence(upload: true, expected: 5), source: .unreachable),
        Case(name: "Apple: upload body out of reach, length unknown", evidence: evidence(upload: true, expected: -1), source: .unreachable),
        Case(name: "Apple: upload body out of reach, length 0", evidence: evidence(upload: true, expected: 0), source: .unreachable),
    ]

    @Test(arguments: cases)
    func theBodyIsFoundWhereThePlatformKeepsIt(_ example: Case) {
        #expect(RequestBody.source(example.evidence) == example.source)
    }

    /// A body the platform made into a stream is re-sent as data, with its length announced;
    /// a caller's own stream stays a stream (sent chunked, length unknown).
    @Test func aStreamThePlatformMadeIsResentAsDataWithItsLength() {
        let data = Data("ten bytes!".utf8)
        #expect(RequestBody(data: data, form: .request).expectedLength == 10)
        #expect(RequestBody(data: data, form: .upload).expectedLength == 10)
        #expect(RequestBody(data: data, form: .requestStream).expectedLength == 0)
        #expect(RequestBody(data: data, form: .uploadStream).expectedLength == 0)
    }

    /// The run-loop modes client calls are scheduled in on Apple platforms: the common modes,
    /// and the mode `startLoading` ran in when it is another.
    @Test func clientCallsRunInTheModeStartLoadingRanIn() {
        let common = "kCFRunLoopCommonModes"
        #expect(ClientThread.modes(current: nil, common: common) == [common])
        #expect(ClientThread.modes(current: common, common: common) == [common])
        #expect(ClientThread.modes(current: "kCFRunLoopDefaultMode", common: common) == [common, "kCFRunLoopDefaultMode"])
        #expect(ClientThread.modes(current: "com.example.synchronous-load", common: common) == [common, "com.example.synchronous-load"])
    }
}
