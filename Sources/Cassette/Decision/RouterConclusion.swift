import Foundation

extension Router {
    /// What the requests came to, when the tape is ejected.
    struct Conclusion {
        /// The new recordings, in the order their requests started; a secret found in one is
        /// removed from all of them, also from those recorded before it was found.
        var recorded: [Interaction]
        var log: Log
        /// The cassette's interactions that answered nothing: `#3 GET https://…`.
        var unused: [String]
    }

    /// What the requests came to (``Tape/eject()`` asks once, after the sessions are detached):
    /// the recorder hands its recordings over and keeps none.
    func conclusion() -> Conclusion {
        Conclusion(recorded: redactor.removingKnownSecrets(from: recorder.takeInteractions()), log: log.current, unused: unused)
    }

    /// What the requests came to so far, while they go on: nothing is handed over.
    func progress() -> (recorded: Int, log: Log, unused: [String]) {
        (recorder.interactions.count, log.current, unused)
    }

    /// The cassette's interactions that answered nothing yet: `#3 GET https://…`.
    private var unused: [String] {
        playback.recordings.prefix(playback.ownCount).enumerated().filter { !$0.element.used }.map { index, recording in
            "#\(index + 1) \(recording.request.method) \(recording.request.url)"
        }
    }

    /// The origins (`scheme://host:port`) of the cassette's recordings.
    var recordedOrigins: Set<String> {
        Set(playback.recordings.compactMap { OriginMove.origin(of: $0.request.url) })
    }
}
