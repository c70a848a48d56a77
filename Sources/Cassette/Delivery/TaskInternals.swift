import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What FoundationNetworking keeps private about a task and Cassette needs, found by
/// reflection (the task's `workQueue` at the place its type's field records give, the rest by
/// `Mirror`), with a safe answer when a field is not found. On Apple platforms
/// none of these fields exist and every lookup gives its fallback, except the task's session
/// (``session(of:)``). A session's configuration is never read here: its ``SlotBinding`` knows it.
///
/// Measured on Swift 6.3.1 (docs/Architecture.md, "Linux facts"): a task's `workQueue` targets its session's `workQueue`,
/// which is also where the session mutates its task registry; reading the registry is
/// therefore safe only from `startLoading` or from work running on the task's `workQueue`.
enum TaskInternals {
    /// The serial queue on which FoundationNetworking calls the client for `task`; nil on Apple
    /// platforms. An immutable field: safe to read from any thread.
    ///
    /// Asked for every request answered after `startLoading` returned, so it is read at the
    /// place the type's field records give for a `workQueue` that is a `DispatchQueue`
    /// (``workQueueOffset``), found once; a `Mirror` took about 11 µs to find it. Where the
    /// records say otherwise (a FoundationNetworking that changed), by `Mirror`, or nil.
    static func workQueue(of task: URLSessionTask?) -> DispatchQueue? {
        #if canImport(FoundationNetworking)
        guard let task else { return nil }
        if let offset = workQueueOffset {
            return withExtendedLifetime(task) {
                UnsafeRawPointer(Unmanaged.passUnretained(task).toOpaque()).load(fromByteOffset: offset, as: DispatchQueue.self)
            }
        }
        return field("workQueue", of: task) as? DispatchQueue
        #else
        return nil
        #endif
    }

    #if canImport(FoundationNetworking)
    /// The byte offset of `URLSessionTask`'s stored `workQueue` in every task (subclasses keep
    /// their superclass's fields where it put them), when the type's field records name such a
    /// field and say it is a `DispatchQueue`; nil otherwise. An immutable field set by the
    /// task's initializer: reading it from any thread is safe while the task is alive.
    static let workQueueOffset: Int? = FieldRecords.offset(of: "workQueue", in: URLSessionTask.self, type: DispatchQueue.self)
    #endif

    /// The last task whose session was asked for, and that session: one request asks several
    /// times in a row (its place in the recording, its delegate), and each reflection costs
    /// microseconds on the queue every session shares. Neither is kept alive.
    private struct LastSession {
        weak var task: URLSessionTask?
        weak var session: URLSession?
    }

    private static let lastSession = Locked(LastSession())

    /// The session that runs `task`, or nil where it cannot be found. An immutable field: safe
    /// to read from any thread.
    ///
    /// First `known`, the session Cassette made and knows runs it (``Exchange/knownSession``: a
    /// tape's own session, one from ``Tape/makeSession(configuration:delegate:delegateQueue:)``),
    /// on every platform. Else, Linux: FoundationNetworking's `session` field, by reflection;
    /// Apple platforms: the task's `session` property, which is not public API: asked only when
    /// the task answers its selector (checked first), so a system without it gives nil, never an
    /// exception; the first tape has said so (``NetworkingInternals``).
    static func session(of task: URLSessionTask?, known: URLSession? = nil) -> URLSession? {
        guard let task else { return nil }
        if let known { return known }
        if let last = lastSession.withLock({ $0.task === task ? $0.session : nil }) { return last }
        #if canImport(FoundationNetworking)
        let session = field("session", of: task) as? URLSession
        #else
        let selector = NSSelectorFromString("session")
        let answers = task.responds(to: selector)
        let session = answers ? task.perform(selector)?.takeUnretainedValue() as? URLSession : nil
        #endif
        lastSession.withLock { $0 = LastSession(task: task, session: session) }
        return session
    }

    /// Whether every `didLoad` reaches the caller: true when the task reports to a session
    /// delegate. Completion handlers and `data(for:)` on Linux keep only the last `didLoad`
    /// (docs/Architecture.md, "Linux facts"), so for them, and whenever the answer cannot be found, this is false. On Apple
    /// platforms, where the loading system gathers the pieces for every API, it is true.
    ///
    /// A session without a task delegate answers false at once: FoundationNetworking reports a
    /// delegate-driven task only to the session's delegate (its `behaviour(for:)` gives
    /// `.noDelegate` otherwise), so nobody would hear the pieces, and reading the task registry
    /// costs a third of the time Cassette adds to a recorded request.
    ///
    /// Call only from `startLoading` or from the task's work queue (see the type's notes).
    static func deliversEveryChunk(_ task: URLSessionTask?, known: URLSession? = nil) -> Bool {
        #if canImport(FoundationNetworking)
        guard let task, let session = session(of: task, known: known), session.delegate is URLSessionTaskDelegate,
            let behaviour = behaviour(of: task, in: session)
        else { return false }
        return isCallDelegate(behaviour)
        #else
        return true
        #endif
    }

    /// The body FoundationNetworking keeps for `task` (its internal `knownBody`): the only place
    /// the body of `uploadTask(with:from:)` and `uploadTask(with:fromFile:)` can be found on Linux.
    static func knownBody(of task: URLSessionTask?) -> KnownBody {
        #if canImport(FoundationNetworking)
        guard let task else { return .notFound }
        var mirror: Mirror? = Mirror(reflecting: task)
        while let current = mirror {
            if let child = current.children.first(where: { $0.label == "knownBody" }) {
                guard let body = unwrapped(child.value) else { return .absent }
                guard let payload = Mirror(reflecting: body).children.first else { return .empty }
                switch (payload.label, payload.value) {
                case ("data", let data as DispatchData):
                    var bytes = Data(count: data.count)
                    bytes.withUnsafeMutableBytes { (buffer: UnsafeMutableRawBufferPointer) in data.copyBytes(to: buffer, count: data.count)
                    }
                    return .data(bytes)
                case ("file", let url as URL): return .file(url)
                case ("stream", let stream as InputStream): return .stream(stream)
                default: return .notFound
                }
            }
            mirror = current.superclassMirror
        }
        return .notFound
        #else
        return .notFound
        #endif
    }

    /// What ``knownBody(of:)`` found.
    enum KnownBody {
        /// Not reachable here (Apple platforms, or a FoundationNetworking that changed).
        case notFound
        /// The task has none: a request without a body, or `uploadTask(withStreamedRequest:)`,
        /// whose body comes from the delegate's `needNewBodyStream`.
        case absent
        /// A body of no bytes.
        case empty
        case data(Data)
        case file(URL)
        case stream(InputStream)

        /// Which case this is, without its payload.
        enum Kind: Equatable {
            case notFound, absent, empty, data, file, stream
        }

        var kind: Kind {
            switch self {
            case .notFound: .notFound
            case .absent: .absent
            case .empty: .empty
            case .data: .data
            case .file: .file
            case .stream: .stream
            }
        }
    }

    /// The delegate asked about `task`'s redirects, as the platform asks it for a live request:
    /// the task's `delegate` property, else the session's delegate when it is a
    /// `URLSessionTaskDelegate` — whichever API started the task (measured on Linux: a
    /// completion-handler task of a session with a delegate asks it too; the delegate given to
    /// `data(for:delegate:)` is not asked there, as FoundationNetworking does not set the task's
    /// `delegate` for it; Apple platforms set it, so it is asked there, as live).
    static func redirectDelegate(of task: URLSessionTask?, known: URLSession? = nil) -> URLSessionTaskDelegate? {
        guard let task else { return nil }
        return task.delegate ?? session(of: task, known: known)?.delegate as? URLSessionTaskDelegate
    }

    /// The delegate told about `task`'s upload progress (`didSendBodyData`), as the platform's
    /// own HTTP loading tells it. FoundationNetworking: only for delegate-driven tasks and tasks
    /// given their own delegate, never for a completion handler alone (measured). Apple
    /// platforms: the task's delegate, else the session's — the loading system never reports
    /// progress for a request a protocol answers (OHHTTPStubs documents it), so Cassette does,
    /// through the same code as on Linux.
    static func progressDelegate(of task: URLSessionTask?, known: URLSession? = nil) -> URLSessionTaskDelegate? {
        #if canImport(FoundationNetworking)
        guard let task, let session = session(of: task, known: known), let behaviour = behaviour(of: task, in: session) else {
            return nil
        }
        // One reflection of the behaviour: `.callDelegate`, the one case without a payload, tells
        // the session's delegate; `…WithTaskDelegate(completion, delegate)` the task's; any other
        // (a completion handler alone) nobody. A closure is never reflected: that cost a
        // replayed upload 110 k instructions.
        let mirror = Mirror(reflecting: behaviour)
        guard mirror.displayStyle == .enum else { return nil }
        guard let (label, payload) = mirror.children.first else { return session.delegate as? URLSessionTaskDelegate }
        guard label?.hasSuffix("WithTaskDelegate") == true else { return nil }
        for element in Mirror(reflecting: payload).children {
            if let delegate = unwrapped(element.value) as? URLSessionTaskDelegate { return delegate }
        }
        return nil
        #else
        return redirectDelegate(of: task, known: known)
        #endif
    }

    /// Whether `behaviour` is `.callDelegate`: the one case of FoundationNetworking's `_Behaviour`
    /// without a payload (the others carry completion handlers). Printing the value would say so
    /// too, at many times the cost.
    private static func isCallDelegate(_ behaviour: Any) -> Bool {
        let mirror = Mirror(reflecting: behaviour)
        return mirror.displayStyle == .enum && mirror.children.isEmpty
    }

    /// How the session reports `task` to its caller (FoundationNetworking's `_Behaviour`).
    private static func behaviour(of task: URLSessionTask, in session: URLSession) -> Any? {
        // Looked up in place: a cast to `[Int: Any]` copied every task's entry into a new dictionary.
        guard let registry = field("taskRegistry", of: session),
            let behaviours = field("behaviours", of: registry) as? any IntKeyed
        else { return nil }
        return behaviours.value(at: task.taskIdentifier)
    }

    /// The stored property `label` of `value`, searched up the superclasses.
    ///
    /// Where a field was found is remembered per type (which superclass, which position), so the
    /// next lookup reads one child instead of every one before it: this runs for every request.
    private static func field(_ label: String, of value: Any) -> Any? {
        let key = FieldKey(type: ObjectIdentifier(type(of: value) as Any.Type), label: label)
        if let place = fieldPlaces.withLock({ $0[key] }) {
            var mirror: Mirror? = Mirror(reflecting: value)
            for _ in 0..<place.depth { mirror = mirror?.superclassMirror }
            if let children = mirror?.children, place.offset < children.count {
                let child = children[children.index(children.startIndex, offsetBy: place.offset)]
                if child.label == label { return unwrapped(child.value) }
            }
        }
        var mirror: Mirror? = Mirror(reflecting: value)
        var depth = 0
        while let current = mirror {
            for (offset, child) in current.children.enumerated() where child.label == label {
                fieldPlaces.withLock { $0[key] = FieldPlace(depth: depth, offset: offset) }
                return unwrapped(child.value)
            }
            mirror = current.superclassMirror
            depth += 1
        }
        return nil
    }

    private struct FieldKey: Hashable {
        var type: ObjectIdentifier
        var label: String
    }

    private struct FieldPlace {
        var depth: Int
        var offset: Int
    }

    /// Where each (type, label) was found; types are few (a handful of task and session classes).
    private static let fieldPlaces = Locked<[FieldKey: FieldPlace]>([:])

    /// `value` without its `Optional` wrapping, or nil for `.none`. A cast to ``AnyOptional``
    /// answers for less than a `Mirror`, and every request's reflection passes here.
    private static func unwrapped(_ value: Any) -> Any? {
        guard let optional = value as? any AnyOptional else { return value }
        return optional.wrappedValue.flatMap(unwrapped)
    }
}

/// A dictionary keyed by `Int`, whatever its values, seen through `Any`.
private protocol IntKeyed {
    func value(at key: Int) -> Any?
}

extension Dictionary: IntKeyed where Key == Int {
    fileprivate func value(at key: Int) -> Any? { self[key].map { $0 as Any } }
}

/// An `Optional` of any type, seen through `Any`.
private protocol AnyOptional {
    var wrappedValue: Any? { get }
}

extension Optional: AnyOptional {
    fileprivate var wrappedValue: Any? { map { $0 as Any } }
}
