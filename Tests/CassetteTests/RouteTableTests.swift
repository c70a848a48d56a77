import Foundation
import Testing
@testable import Cassette

@Suite struct RouteTableTests {
    static func router() -> Router {
        Router(setup: .init(file: URL(fileURLWithPath: "/tmp/x.json"), mode: .none, recordsNewRequests: false, replays: true, latency: .instant),
               playback: PlaybackQueue([], rules: .default, allowsRepeats: false))
    }

    @Test func eachAttachedRouterHasItsOwnClassAndEjectedClassesAreReused() {
        let table = RouteTable()
        let a = Self.router(), b = Self.router(), c = Self.router()
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
