import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The one way Cassette talks to a `URLProtocolClient`, written around what FoundationNetworking
/// on Linux tolerates (docs/Architecture.md, "Linux facts"):
///
/// - a client call after `stopLoading` or after the final call is a fatal error there, so every
///   call happens under a lock and checks that the channel is still open;
/// - a client call from a thread of our own races with the session's task registry, so calls
///   made later than `startLoading` hop onto the task's own work queue (``ClientThread``, which
///   on Apple platforms is the run loop of `startLoading` instead);
/// - completion handlers and `data(for:)` keep only the last `didLoad`, so a body is delivered
///   in one piece unless ``TaskInternals/deliversEveryChunk(_:)`` says every piece arrives;
/// - delays are scheduled with a timer, never slept; closing the channel
///   cancels the timer, so a cancelled request hears nothing more;
/// - a live session stores the cookies of a response in the configuration's cookie storage; a
///   protocol's response is not stored by FoundationNetworking, so the channel does it;
/// - with a tape that keeps URL caches and caches (``URLCacheUse``), the channel stores what a
///   live session's cache would and answers a revalidation's `304` from it (``CacheWriter``).
///
/// The protocol owns its exchange and the exchange this channel, so the channel lets go of the
/// protocol when it closes: held longer, the three would keep each other — and the task, its
/// request and its body — alive forever.
final class ClientChannel: @unchecked Sendable {
    /// The protocol being answered, until the channel closes.
    private var urlProtocol: URLProtocol?
    /// When the request started (the channel is made in `startLoading`), or its latest redirect
    /// hop did; plans count from here.
    private var startedAt = DispatchTime.now()
    /// When `startLoading` made the channel.
    private let createdAt = DispatchTime.now()
    /// Recursive: corelibs may call `stopLoading` from inside a client call on the same thread.
    private let lock = RecursiveLock()
    private var isOpen = true
    private let origin = ClientThread.Origin()
    private var clientThread: ClientThread?
    /// How many items handed to ``later(_:)`` have not run yet.
    private var waiting = 0
    private var timer: DispatchSourceTimer?
    /// The session's `timeoutIntervalForResource`, running from `startLoading`.
    private var deadline: DispatchSourceTimer?
    /// What the session's URL cache does with the answer; nil when nothing is cached.
    private var cacheWriter: CacheWriter?
    /// The session Cassette knows runs the task (``Exchange/knownSession``), whose delegate is
    /// asked `willCacheResponse`; nil: found through the task (``TaskInternals/session(of:known:)``).
    private var knownSession: URLSession?

    init(_ urlProtocol: URLProtocol) {
        self.urlProtocol = urlProtocol
    }

    /// The task being answered; nil once the channel closed.
    var task: URLSessionTask? {
        lock.lock()
        defer { lock.unlock() }
        return urlProtocol?.task
    }

    /// Whether the channel is still open: neither closed nor past its final client call.
    var isAnswering: Bool {
        lock.lock()
        defer { lock.unlock() }
        return isOpen
    }

    /// Closes the channel: nothing reaches the client afterwards, and a scheduled delivery is
    /// cancelled. Called from `stopLoading`.
    func close() {
        lock.lock()
        isOpen = false
        urlProtocol = nil
        let timers = [timer, deadline]
        timer = nil
        deadline = nil
        lock.unlock()
        for timer in timers { timer?.cancel() }
    }

    /// Seconds since `startLoading`.
    var age: TimeInterval { Double(DispatchTime.now().uptimeNanoseconds - createdAt.uptimeNanoseconds) / 1_000_000_000 }

    /// Hands the answer to `writer` as it is delivered (see ``CacheWriter``); `known` is the
    /// session Cassette knows runs the task, asked before the private way of finding it.
    func cache(with writer: CacheWriter, known: URLSession?) {
        lock.lock()
        cacheWriter = writer
        knownSession = known
        lock.unlock()
    }

    /// Sends a response the session's cache answers with, right now: no cookies stored (they
    /// were when it was first received), nothing stored again.
    func deliverCached(_ response: HTTPURLResponse, body: Data) {
        send { client, urlProtocol in client.urlProtocol(urlProtocol, didReceive: response, cacheStoragePolicy: .notAllowed) }
        deliverData(body, throughCache: false)
        finish(error: nil)
    }

    /// Plans and waits count from now on: the next hop of a redirect starts.
    func restartClock() {
        lock.lock()
        startedAt = .now()
        lock.unlock()
    }

    /// Runs `work` on the client thread after `seconds`, unless the channel closes first; at once,
    /// in the caller's context, when `seconds` is not positive.
    func after(_ seconds: TimeInterval, _ work: @escaping @Sendable () -> Void) {
        guard seconds > 0 else { return work() }
        schedule(in: seconds, into: \.timer, work)
    }

    /// Fails the exchange with `error` when it is still open `seconds` from now: the session's
    /// `timeoutIntervalForResource`, which bounds the whole task, redirects included.
    func expire(after seconds: TimeInterval, with error: @escaping @Sendable () -> URLError, then: @escaping @Sendable () -> Void) {
        schedule(in: seconds, into: \.deadline) { [self] in
            finish(error: error())
            then()
        }
    }

    /// A one-off timer, kept in `slot` so that closing cancels it; `work` runs on the client thread.
    private func schedule(
        in seconds: TimeInterval, into slot: ReferenceWritableKeyPath<ClientChannel, DispatchSourceTimer?>,
        _ work: @escaping @Sendable () -> Void
    ) {
        let thread = self.thread()
        let queue = thread.timerQueue
        lock.lock()
        // Made only for an open channel: libdispatch traps when a never-activated source is released.
        guard isOpen else {
            lock.unlock()
            return
        }
        let timer = DispatchSource.makeTimerSource(queue: queue)
        self[keyPath: slot] = timer
        lock.unlock()
        timer.setEventHandler {
            timer.cancel()
            thread.runFromTimer(work)
        }
        timer.schedule(deadline: .now() + .nanoseconds(Int(DeliveryPlan.schedulable(seconds) * 1_000_000_000)), leeway: .milliseconds(1))
        timer.resume()
    }

    /// Runs `plan`: inline when everything is due now (call from `startLoading`), otherwise on
    /// the client thread, each event at its time counted from the start of the request.
    ///
    /// - Parameters:
    ///   - head: the response head, for a plan with a `.head` step.
    ///   - setsCookies: whether `head` has a `Set-Cookie` field (known from the recording or the
    ///     stub for less than asking the `HTTPURLResponse`).
    ///   - body: the bytes the plan's `.body` ranges index.
    ///   - error: the error for a `.fail` step's code.
    func play(
        _ plan: DeliveryPlan, head: HTTPURLResponse?, setsCookies: Bool, body: Data,
        error: @escaping @Sendable (URLError.Code) -> URLError
    ) {
        guard !plan.isImmediate else {
            return playNow(plan, head: head, setsCookies: setsCookies, body: body, error: error)
        }
        let run: @Sendable (DeliveryPlan.Step) -> Void = { [self] step in
            perform(step, head: head, setsCookies: setsCookies, body: body, error: error)
        }
        let thread = self.thread()
        let queue = thread.timerQueue
        // Made only for an open channel: libdispatch traps when a never-activated source is released.
        lock.lock()
        let schedule = PlanSchedule(events: plan.events, startedAt: startedAt)
        guard isOpen else {
            lock.unlock()
            return
        }
        let timer = DispatchSource.makeTimerSource(queue: queue)
        self.timer = timer
        lock.unlock()
        // The handler holds the timer until it is cancelled, which releases the handler: at the
        // plan's last event, or when the channel closes (even before `resume`, which is fine).
        timer.setEventHandler {
            let due = schedule.due()
            thread.runFromTimer { for step in due { run(step) } }
            if let next = schedule.nextDeadline {
                timer.schedule(deadline: next, leeway: .milliseconds(1))
            } else {
                timer.cancel()
            }
        }
        timer.schedule(deadline: schedule.nextDeadline ?? .now(), leeway: .milliseconds(1))
        timer.resume()
    }

    /// Runs `plan`, whose events are all due now, right now: from `startLoading`, or from
    /// ``later(_:)``. Every replay without latency comes here, and keeps no closure.
    func playNow(_ plan: DeliveryPlan, head: HTTPURLResponse?, setsCookies: Bool, body: Data, error: (URLError.Code) -> URLError) {
        for event in plan.events { perform(event.step, head: head, setsCookies: setsCookies, body: body, error: error) }
    }

    /// Sends one step of a plan right now.
    private func perform(
        _ step: DeliveryPlan.Step, head: HTTPURLResponse?, setsCookies: Bool, body: Data,
        error: (URLError.Code) -> URLError
    ) {
        switch step {
        case .head: if let head { deliverHead(head, setsCookies: setsCookies) }
        case .body(let range):
            // The whole body goes as it is: a copy of a 100 MB body would double the memory.
            deliverData(
                range == 0..<body.count
                    ? body : body.subdata(in: (body.startIndex + range.lowerBound)..<(body.startIndex + range.upperBound)))
        case .finish: finish(error: nil)
        case .fail(let code): finish(error: error(code))
        }
    }

    /// Sends a whole response — head, body in one piece, then the end or `error` — right now.
    /// Call from `startLoading` or from ``later(_:)``.
    func deliver(_ response: HTTPURLResponse?, body: Data, error: URLError?) {
        if let response {
            deliverHead(response)
            deliverData(body)
        }
        finish(error: error)
    }

    /// Sends the response head right now, after storing its cookies as a live session would.
    /// `setsCookies` false skips looking for them: a replay knows it has none.
    func deliverHead(_ response: HTTPURLResponse, setsCookies: Bool = true) {
        var fromCache: Data?
        send { client, urlProtocol in
            if setsCookies {
                let configuration = (urlProtocol as? CassetteURLProtocol)?.sessionConfiguration
                CookieSync.store(cookiesOf: response, for: urlProtocol.request, configuration: configuration)
            }
            var head = response
            if let cacheWriter { (head, fromCache) = cacheWriter.head(response) }
            client.urlProtocol(urlProtocol, didReceive: head, cacheStoragePolicy: .notAllowed)
        }
        if let fromCache { deliverData(fromCache, throughCache: false) }
    }

    /// Sends part of the body right now.
    func deliverData(_ data: Data) {
        deliverData(data, throughCache: true)
    }

    private func deliverData(_ data: Data, throughCache: Bool) {
        guard !data.isEmpty else { return }
        send { client, urlProtocol in
            if throughCache, let cacheWriter, !cacheWriter.passes(data) { return }
            client.urlProtocol(urlProtocol, didLoad: data)
        }
    }

    /// Sends the body in one piece and the end, or `error`, right now.
    func deliverRest(body: Data, error: URLError?) {
        deliverData(body)
        finish(error: error)
    }

    /// Ends the exchange with `error`, or successfully when `nil`, and closes the channel. When
    /// the session's cache would store the answer, the task's delegate is asked first
    /// (``TaskDelegateCalls/willCacheResponse(_:of:known:_:)``), and the exchange ends once it
    /// answered, as a live task completes after its `willCacheResponse`. The question goes on the
    /// delegate queue after the response and every piece of the body were handed to the client,
    /// so a delegate asked finds what `didReceive` kept (Apple's order: response, data,
    /// `willCacheResponse`, completion; `URLCachePolicyTests` records it on a serial queue).
    func finish(error: URLError?) {
        lock.lock()
        let writer = isOpen ? cacheWriter : nil
        cacheWriter = nil
        let task = urlProtocol?.task
        let known = knownSession
        lock.unlock()
        guard let writer, let proposed = writer.finish(failed: error != nil) else { return end(error: error) }
        TaskDelegateCalls.willCacheResponse(proposed, of: task, known: known) { [self] chosen in
            if let entry = chosen.value { writer.store(entry) }
            later { self.end(error: error) }
        }
    }

    private func end(error: URLError?) {
        send(closing: true) { client, urlProtocol in
            if let error {
                client.urlProtocol(urlProtocol, didFailWithError: error)
            } else {
                client.urlProtocolDidFinishLoading(urlProtocol)
            }
        }
    }

    /// Runs `work` where client calls are safe after `startLoading` returned (``ClientThread``).
    /// Work items run one after another, in the order they were handed over.
    func later(_ work: @escaping @Sendable () -> Void) {
        lock.lock()
        waiting += 1
        lock.unlock()
        thread().run { [self] in
            work()
            lock.lock()
            waiting -= 1
            lock.unlock()
        }
    }

    /// Runs `work` at once when the caller already runs where client calls are safe
    /// (`onClientQueue`) and no work handed to ``later(_:)`` is still waiting, so that order is
    /// kept; otherwise like ``later(_:)``.
    ///
    /// On Linux every session's work queue targets FoundationNetworking's one process-wide serial
    /// queue (docs/Architecture.md, "Linux facts"), so work on any queue that targets a task's work queue is serialised
    /// with every client call FoundationNetworking makes: the recording's ``LiveForwarder`` reports
    /// there, and answering at once saves the caller a trip through the queue (a tenth of a
    /// recorded loopback request).
    func soon(onClientQueue: Bool, _ work: @escaping @Sendable () -> Void) {
        if onClientQueue {
            lock.lock()
            let nothingWaits = waiting == 0
            lock.unlock()
            if nothingWaits { return work() }
        }
        later(work)
    }

    /// The client's thread, found on first use: instant replays answer inline and never need it.
    private func thread() -> ClientThread {
        lock.lock()
        defer { lock.unlock() }
        if let clientThread { return clientThread }
        let made = ClientThread.make(origin: origin, task: urlProtocol?.task)
        clientThread = made
        return made
    }

    private func send(closing: Bool = false, _ call: (URLProtocolClient, URLProtocol) -> Void) {
        lock.lock()
        defer { lock.unlock() }
        guard isOpen, let urlProtocol, let client = urlProtocol.client else { return }
        if closing {
            isOpen = false
            self.urlProtocol = nil
            timer?.cancel()
            timer = nil
            deadline?.cancel()
            deadline = nil
        }
        call(client, urlProtocol)
    }
}

/// The events of a plan still to come. Used only on the channel's timer queue, one event handler
/// at a time.
private final class PlanSchedule: @unchecked Sendable {
    private let events: [DeliveryPlan.Event]
    private let startedAt: DispatchTime
    private var next = 0

    init(events: [DeliveryPlan.Event], startedAt: DispatchTime) {
        self.events = events
        self.startedAt = startedAt
    }

    /// The steps whose time has come, in order.
    func due() -> [DeliveryPlan.Step] {
        let now = DispatchTime.now()
        var steps: [DeliveryPlan.Step] = []
        while next < events.count, deadline(of: events[next]) <= now {
            steps.append(events[next].step)
            next += 1
        }
        return steps
    }

    /// When the next event is due, or nil when none is left.
    var nextDeadline: DispatchTime? {
        next < events.count ? deadline(of: events[next]) : nil
    }

    private func deadline(of event: DeliveryPlan.Event) -> DispatchTime {
        // Plans hold times from zero to a day (DeliveryPlan.schedulable): the conversion cannot trap.
        startedAt + .nanoseconds(Int(DeliveryPlan.schedulable(event.at) * 1_000_000_000))
    }
}
