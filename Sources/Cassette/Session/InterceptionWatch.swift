import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What ``Tape/interceptEverySession(routingTo:)`` routed to a tape and cannot see afterwards,
/// said when the tape is ejected (``VerificationFinding/interceptionBypassed(cassette:message:)``):
/// a configuration in which another protocol class came to stand before Cassette's, or which lost
/// Cassette's class (a debugging tool such as netfox or DebugSwift, or the code under test, set
/// its `protocolClasses`); and a background configuration, which no `URLProtocol` sees. Their
/// requests go to the network unrecorded, and Cassette's protocol never hears of them.
///
/// A configuration is looked at when the tape is ejected, through its `protocolClasses` getter
/// (which such a tool may have replaced), as a session made from it then would read it: the
/// first ``watchedConfigurations`` routed to a tape are kept until then.
final class InterceptionWatch: Sendable {
    /// How many configurations a tape keeps to look at (an app host may make thousands).
    static let watchedConfigurations = 64

    private let configurations = Locked<[UncheckedSendable<URLSessionConfiguration>]>([])
    private let backgrounds = Locked<[String]>([])

    /// Keeps `configuration`, just routed, to look at when the tape is ejected.
    func watch(_ configuration: URLSessionConfiguration) {
        configurations.withLock { watched in
            guard watched.count < Self.watchedConfigurations, !watched.contains(where: { $0.value === configuration }) else { return }
            watched.append(UncheckedSendable(configuration))
        }
    }

    /// Notes a background configuration made for `identifier` while every session was intercepted.
    func noteBackground(identifier: String) {
        backgrounds.withLock { if !$0.contains(identifier) { $0.append(identifier) } }
    }

    /// What went around Cassette's protocol, one message per kind of bypass: the classes that
    /// stand before it (or its absence) with how many configurations, then each background
    /// configuration.
    func bypasses() -> [String] {
        var counts: [(before: [String], count: Int)] = []
        for watched in configurations.withLock({ $0 }) {
            let classes = watched.value.protocolClasses ?? []
            let before: [String]
            if let ours = classes.firstIndex(where: { $0 is CassetteURLProtocol.Type }) {
                guard ours > 0 else { continue }
                before = classes[..<ours].map { String(describing: $0) }
            } else {
                before = []
            }
            if let index = counts.firstIndex(where: { $0.before == before }) {
                counts[index].count += 1
            } else {
                counts.append((before, 1))
            }
        }
        return counts.map { Self.message(before: $0.before, configurations: $0.count) }
            + backgrounds.withLock { $0 }.map(Self.message(background:))
    }

    static func message(before: [String], configurations count: Int) -> String {
        let made = count == 1 ? "a session configuration" : "\(count) session configurations"
        let intercepted = "made while every session was intercepted (Tape.interceptEverySession())"
        guard !before.isEmpty else {
            return "\(made) \(intercepted) no longer \(count == 1 ? "has" : "have") Cassette's protocol class: its protocolClasses "
                + "were replaced, so the requests of sessions made from \(count == 1 ? "it" : "them") went to the network unrecorded. "
                + "Add to the protocolClasses that are there, or make the session from tape.configure(_:) after setting them."
        }
        let names = before.joined(separator: ", ")
        return "\(made) \(intercepted) \(count == 1 ? "has" : "have") \(names) before Cassette's protocol class: "
            + "the requests \(before.count == 1 ? "it takes" : "they take") went around the cassette, neither recorded nor replayed. "
            + "Turn off what puts \(before.count == 1 ? "it" : "them") first in tests (a debugging tool such as netfox or DebugSwift, "
            + "or the code under test), or add \(before.count == 1 ? "it" : "them") after Cassette's class."
    }

    static func message(background identifier: String) -> String {
        "URLSessionConfiguration.background(withIdentifier: \"\(identifier)\") was made while every session was intercepted "
            + "(Tape.interceptEverySession()): a background session runs its transfers in another process, where no URLProtocol "
            + "sees them, so its requests went to the network unrecorded. In tests, give the code under test a .default or "
            + ".ephemeral configuration (or tape.session) instead."
    }
}
