import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension SessionExecutor {
    /// Asks the caller's delegate the `round`th challenge recorded before `answer`, as a live
    /// session asks after a challenged response, and goes on as ``KeptChallenge/next(recorded:given:)``
    /// decides: the next challenge, then the recorded answer; or the challenged response; or a
    /// failure like a miss. Nobody to ask is the platform's default handling, as live. `failed` is
    /// the credential the delegate gave in the round before, which the platform may propose.
    /// Where the platform hands a delegate the challenged response before asking
    /// (``ChallengeRules/handsChallengedResponseBeforeAsking``), its head and body go first, and
    /// an answer that ends at the challenge does not hand them over again.
    func askChallenges(of answer: Answer, from round: Int, hop: Hop, of exchange: Exchange, failed: URLCredential? = nil) {
        guard round < answer.challenges.count else {
            var answered = answer
            answered.challenges = []
            return play(answered, hop: hop, of: exchange)
        }
        let step = answer.challenges[round]
        let channel = exchange.channel
        let rules = router.access.challengeRules
        let proposed = rules.proposesFailedCredential ? failed : nil
        guard let url = hop.request.url, let question = KeptChallenge.question(step.challenge, round: round, url: url, proposed: proposed)
        else {
            return askChallenges(of: answer, from: round + 1, hop: hop, of: exchange)
        }
        let handed = rules.handsChallengedResponseBeforeAsking && handOver(step.challenged, to: url, of: exchange)
        TaskDelegateCalls.challenge(question, of: channel.task, known: exchange.knownSession) { disposition, credential in
            let given = KeptChallenge.answer(disposition, credential: credential)
            let sendable = UncheckedSendable(credential)
            channel.later { [self] in
                guard !exchange.isStopped else { return }
                switch KeptChallenge.next(recorded: step.challenge.answer, given: given) {
                case .asRecorded:
                    askChallenges(of: answer, from: round + 1, hop: hop, of: exchange, failed: sendable.value)
                case .cancelled:
                    channel.finish(error: URLError(.cancelled))
                case .challengedResponse where handed:
                    let ended = endedAsThePlatformEnds(step.challenged, url: url)
                    channel.finish(error: ended.endCode.map { ended.error($0, timeout: nil) })
                case .challengedResponse:
                    play(step.challenged, hop: hop, of: exchange)
                case .unrecorded:
                    channel.finish(error: step.unrecorded.urlError)
                }
            }
        }
    }

    /// Hands `challenged`'s head and body to a caller that hears every piece, as
    /// FoundationNetworking does before it asks about a challenge; false when the caller does not
    /// (it gets the whole answer at the end) or the head cannot be built.
    private func handOver(_ challenged: Answer, to url: URL, of exchange: Exchange) -> Bool {
        let channel = exchange.channel
        guard TaskInternals.deliversEveryChunk(channel.task, known: exchange.knownSession),
            let response = challenged.response, let head = router.access.heads.head(for: response, requestURL: url)
        else { return false }
        channel.deliverHead(head, setsCookies: challenged.setsCookies)
        channel.deliverData(challenged.body)
        return true
    }
}
