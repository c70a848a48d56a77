import Foundation
import Testing
@testable import Cassette

@Suite struct RouteTableTests {
    static func router() throws -> Router {
        let redactor = try Redactor(.default)
        return Router(setup: .init(file: URL(fileURLWithPath: "/tmp/x.json"), mode: .none, recordsNewRequests: false, replays: true, latency: .instant),
                      redactor: redactor, playback: PlaybackQueue([], rules: .default, allowsRepeats: false, redactor: redactor), stubs: Stubs())
    }

    @Test func eachAttachedRouterHasItsOwnClassAndEjectedClassesAreReused() throws {
        let table = RouteTable()
        let a = try Self.router(), b = try Self.router(), c = try Self.router()
        let classA = table.attach(a)
        let classB = table.attach(b)
        #expect(ObjectIdentifier(classA) != ObjectIdentifier(classB))
        #expect(table.router(for: ObjectIdentifier(classA)) === a)
        #expect(table.router(for: ObjectIdentifier(classB)) === b)

        table.detach(classA)
        #expect(table.router(for: ObjectIdentifier(classA)) == nil)
        let classC = table.attach(c)
        #expect(ObjectIdentifier(classC) == ObjectIdentifier(classA), "the freed class is reused")
        #expect(table.router(for: ObjectIdentifier(classC)) === c)
        #expect(table.classCount == 2)
    }
}
