import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The private parts of the platform's networking that Cassette reads to answer as the platform
/// does, each looked for once per process, when the first tape opens. Each has a fallback; a part
/// not found is said once — on standard error as that tape opens, and among its report's warnings
/// — naming what degrades and how, never a silent change of behaviour and never a crash.
///
/// Looked for in the types, never in a task or session of Cassette's making (making one only to
/// look would start FoundationNetworking's machinery in every test process): a field by the
/// type's field records, which `Mirror` reads too; a selector by the class's methods.
enum NetworkingInternals {
    /// One private part, and whether this process's platform has it.
    struct Part: Sendable, Equatable {
        /// What is read: `URLSessionTask.workQueue`.
        let name: String
        /// Whether the platform has it, as Cassette reads it.
        let found: Bool
        /// What degrades without it, and how.
        let withoutIt: String

        /// What the first tape says when the part is missing.
        var message: String {
            "this platform's networking no longer has \(name) (private; Cassette reads it), so \(withoutIt). "
                + "Please report it to Cassette with the output of `swift --version`."
        }
    }

    /// Every part, looked for once.
    static let parts: [Part] = lookForEveryPart()

    private static let told = Locked(false)

    /// What the tapes opened inside `withValue` see instead of this process's parts: how a test
    /// shows what a missing part does.
    @TaskLocal static var stand: Stand?

    /// Parts that stand for the platform's, and whether a tape has said them yet.
    struct Stand: Sendable {
        let parts: [Part]
        let told = Locked(false)
    }

    /// The messages of the parts not found, for the first tape of the process (which says them on
    /// standard error as it opens, and among its report's warnings); empty for every tape after.
    static func firstTapeWarnings() -> [String] {
        if let stand { return warnings(stand.parts, firstTape: stand.told) }
        return warnings(parts, firstTape: told)
    }

    /// The messages of the parts of `parts` not found, when `firstTape` is not yet set (then set).
    static func warnings(_ parts: [Part], firstTape: Locked<Bool>) -> [String] {
        let first = firstTape.withLock { told -> Bool in
            defer { told = true }
            return !told
        }
        guard first else { return [] }
        return parts.filter { !$0.found }.map(\.message)
    }

    private static func lookForEveryPart() -> [Part] {
        #if canImport(FoundationNetworking)
        let registry: AnyClass? = FieldRecords.field("taskRegistry", in: URLSession.self).flatMap { $0.type as? AnyClass }
        let behaviours = registry.flatMap { FieldRecords.field("behaviours", in: $0) }
        return [
            Part(
                name: "URLSessionTask.workQueue", found: TaskInternals.workQueueOffset != nil,
                withoutIt: "a response answered after startLoading returned (a recorded latency, a request decided while "
                    + "others wait) is delivered from a queue of Cassette's own, which can race FoundationNetworking's task "
                    + "registry and crash under load"),
            Part(
                name: "URLSessionTask.session", found: FieldRecords.field("session", in: URLSessionTask.self) != nil,
                withoutIt: "for a session Cassette did not make, its delegate is not asked about redirects, challenges "
                    + "or caching, and responses are delivered in one piece"),
            Part(
                name: "URLSession.taskRegistry.behaviours",
                found: behaviours.map { String(describing: $0.type).hasPrefix("Dictionary<Int, ") } ?? false,
                withoutIt: "whether a task reports to its session's delegate cannot be read: responses are delivered in "
                    + "one piece (one didReceive data) and upload progress is not reported"),
            Part(
                name: "URLSessionTask.knownBody", found: FieldRecords.field("knownBody", in: URLSessionTask.self) != nil,
                withoutIt: "the body of uploadTask(with:from:) and uploadTask(with:fromFile:) cannot be read: such uploads "
                    + "fail with URLError(.requestBodyStreamExhausted) instead of being recorded or matched"),
        ]
        #else
        return [
            Part(
                name: "URLSessionTask.session", found: URLSessionTask.instancesRespond(to: NSSelectorFromString("session")),
                withoutIt: "for a session Cassette did not make, its delegate is not asked about redirects, caching or "
                    + "challenges: make the session with tape.makeSession(configuration:delegate:delegateQueue:), "
                    + "which Cassette knows")
        ]
            + ConfigurationHooks.getters.map { getter in
                Part(
                    name: "URLSessionConfiguration.\(getter)",
                    found: class_getClassMethod(URLSessionConfiguration.self, NSSelectorFromString(getter)) != nil,
                    withoutIt: "Tape.interceptEverySession() cannot route the sessions made from it: their requests reach "
                        + "the network unrecorded; give the code under test tape.session or tape.configure(_:) instead")
            }
        #endif
    }
}
