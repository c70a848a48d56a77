import Foundation

#if canImport(FoundationNetworking)
/// A delegate queue that runs each callback at once, on the thread that hands it over: the
/// ``LiveForwarder``'s inner session uses it on Linux, so that its delegate collects each piece of
/// a body while FoundationNetworking delivers it.
///
/// FoundationNetworking hands every delegate callback to `delegateQueue.addOperation { … }` from
/// its one process-wide work queue, the queue where libcurl also reads the response. With an
/// ordinary queue (or one that targets the work queue) the delegate ran later, and a fast server's
/// body piled up in between: a 20 MB loopback body was queued as up to 1,261 pieces of 16 KiB
/// before the delegate collected one, a different number each time, so each large recording could
/// reach a new peak of resident memory (docs/Architecture.md, "Linux facts"). Run here, a piece
/// is collected before libcurl reads the next one: nothing piles up, libcurl reads no faster than
/// the recording keeps, and no callback waits for a thread.
///
/// What the delegate may do, since it runs on FoundationNetworking's work queue: anything that
/// does not wait for that queue. It must not create, resume or cancel a task of any session there
/// (FoundationNetworking crashes or deadlocks), so ``LiveForwarder`` starts and cancels tasks from
/// a global queue, and hands the end of a large body to one.
final class InlineOperationQueue: OperationQueue, @unchecked Sendable {
    /// Runs `block` now, on the calling thread. FoundationNetworking calls this (the only form of
    /// `addOperation` it uses) from its serial work queue, so the callbacks of one session still
    /// run one at a time and in order.
    override func addOperation(_ block: @escaping @Sendable () -> Void) {
        block()
    }
}
#endif
