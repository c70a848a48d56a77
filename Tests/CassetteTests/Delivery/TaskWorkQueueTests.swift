import Foundation
import Testing

@testable import Cassette

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The queue ``ClientThread`` calls the client on, for a request answered after `startLoading`
/// returned: on Linux the task's own `workQueue`, read where the type's field records put it.
@Suite struct TaskWorkQueueTests {
    /// Tasks of every kind, never resumed: nothing is sent.
    static func tasks(on session: URLSession) throws -> [URLSessionTask] {
        let url = try #require(URL(string: "https://work-queue.example/item"))
        return [
            session.dataTask(with: url),
            session.uploadTask(with: URLRequest(url: url), from: Data("body".utf8)),
            session.downloadTask(with: url),
            session.webSocketTask(with: try #require(URL(string: "wss://work-queue.example/socket"))),
        ]
    }

    #if canImport(FoundationNetworking)
    /// The field is found where its records say, and is the very queue `Mirror` finds: the one
    /// FoundationNetworking calls a task's client on. Were the records to stop naming it (a
    /// FoundationNetworking that changed), every request decided aside or delayed would pay a
    /// `Mirror` search again: this test says so first.
    @Test func aTasksWorkQueueIsReadWhereItsFieldIs() throws {
        let session = URLSession(configuration: .ephemeral)
        defer { session.invalidateAndCancel() }
        #expect(TaskInternals.workQueueOffset != nil)
        for task in try Self.tasks(on: session) {
            let byMirror = Self.mirrorsWorkQueue(of: task)
            let read = TaskInternals.workQueue(of: task)
            #expect(byMirror != nil, "\(type(of: task))")
            #expect(read === byMirror, "\(type(of: task))")
            #expect(read?.label == "org.swift.URLSessionTask.WorkQueue")
        }
        #expect(TaskInternals.workQueue(of: nil) == nil)
    }

    /// The field `workQueue` of `task` or a superclass, found by a `Mirror` walk.
    static func mirrorsWorkQueue(of task: URLSessionTask) -> DispatchQueue? {
        var mirror: Mirror? = Mirror(reflecting: task)
        while let current = mirror {
            if let child = current.children.first(where: { $0.label == "workQueue" }) { return child.value as? DispatchQueue }
            mirror = current.superclassMirror
        }
        return nil
    }
    #else
    /// Apple platforms: a task has no work queue Cassette may use; a request answered later is
    /// answered on the run loop `startLoading` ran on (``ClientThread``).
    @Test func aTaskHasNoWorkQueueHere() throws {
        let session = URLSession(configuration: .ephemeral)
        defer { session.invalidateAndCancel() }
        for task in try Self.tasks(on: session) { #expect(TaskInternals.workQueue(of: task) == nil) }
    }
    #endif
}
