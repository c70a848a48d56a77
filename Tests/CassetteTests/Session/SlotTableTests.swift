import Foundation
import Testing

@testable import Cassette

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite struct SlotTableTests {
    static func router() throws -> Router {
        let redactor = try Redactor(.default)
        return Router(
            setup: .init(
                file: URL(fileURLWithPath: "/tmp/x.json"), mode: .none, recordsNewRequests: false, replays: true, latency: .instant),
            redactor: redactor, playback: PlaybackQueue([], rules: .default, allowsRepeats: false, redactor: redactor), stubs: Stubs())
    }

    @Test func eachAttachedRouterHasItsOwnClassAndEjectedClassesAreReused() throws {
        let table = SlotTable()
        let a = try Self.router()
        let b = try Self.router()
        let c = try Self.router()
        let classA = table.attach(a, configuration: nil, reusable: true)
        let classB = table.attach(b, configuration: nil, reusable: true)
        #expect(ObjectIdentifier(classA) != ObjectIdentifier(classB))
        #expect(table.route(for: ObjectIdentifier(classA))?.router === a)
        #expect(table.route(for: ObjectIdentifier(classB))?.router === b)

        table.detach(classA)
        #expect(table.route(for: ObjectIdentifier(classA)) == nil)
        let classC = table.attach(c, configuration: nil, reusable: true)
        #expect(ObjectIdentifier(classC) == ObjectIdentifier(classA), "the freed class is reused")
        #expect(table.route(for: ObjectIdentifier(classC))?.router === c)
        #expect(table.classCount == 2)
    }

    @Test func aClassHandedToACallersConfigurationIsNeverReused() throws {
        let table = SlotTable()
        let a = try Self.router()
        let b = try Self.router()
        let configuration = URLSessionConfiguration.ephemeral
        let retired = table.attach(a, configuration: configuration, reusable: false)
        #expect(table.route(for: ObjectIdentifier(retired))?.configuration.value === configuration)
        table.detach(retired)
        let next = table.attach(b, configuration: nil, reusable: true)
        #expect(ObjectIdentifier(next) != ObjectIdentifier(retired))
        #expect(table.route(for: ObjectIdentifier(retired)) == nil, "the retired class stays without a route")
        #expect(table.classCount == 2)
    }

    @Test func slotClassesAreDistinctAndNestOnlyAsDeepAsTheirBinaryDigits() {
        let classes = (0..<1_000).map { ObjectIdentifier(SlotTable.protocolClass(number: $0)) }
        #expect(Set(classes).count == 1_000)
        #expect(
            ObjectIdentifier(SlotTable.protocolClass(number: 5))
                == ObjectIdentifier(SlotProtocol<SlotOne<SlotZero<SlotOne<SlotRoot>>>>.self))
        #expect(ObjectIdentifier(SlotTable.protocolClass(number: 0)) == ObjectIdentifier(SlotProtocol<SlotRoot>.self))
        // 999 has ten binary digits: its type name holds ten slot wrappers, not 999.
        let name = String(reflecting: SlotTable.protocolClass(number: 999))
        let slots: Int = name.components(separatedBy: "Slot").count - 1
        #expect(slots == 12, "SlotProtocol, ten digits, SlotRoot: \(name)")
    }
}
