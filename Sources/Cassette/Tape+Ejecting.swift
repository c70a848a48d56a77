import Foundation

// How a tape ends: ejected (saved as ``SavePolicy`` says, reported, kept in the ledger) or
// discarded unused.
extension Tape {
    /// Ends the use of the tape and saves what was recorded.
    ///
    /// The file is written when something was recorded, when mode `all` re-recorded it, or when
    /// it did not exist and the mode records (so that an empty cassette marks "recorded, no
    /// traffic"). New recordings are appended to what the file holds, in the order their
    /// requests started; mode `all` replaces it. It is written atomically: a temporary file in the
    /// same folder, then a rename, so a failed save (or a killed process) leaves the previous file
    /// as it was. Saves into one folder take turns through a lock on the folder, and each re-reads
    /// the file, so processes recording into the same cassette add to it rather than overwrite
    /// each other. The tape's ``session`` is invalidated, and requests still recording are
    /// cancelled and not saved.
    ///
    /// `testFailed`: whether the test failed. A tape that recorded for a test that failed does not
    /// save unless ``Options/savesWhenTestFails`` (or `CASSETTE_SAVE_ON_FAILURE=1`) says so, and its
    /// report warns of the cassette not saved. The `.cassette` trait and `withCassette` pass it for
    /// you; an XCTest `tearDown` that opened the tape in `setUp` passes what XCTest knows:
    ///
    /// ```swift
    /// override func tearDownWithError() throws {
    ///     try tape.eject(testFailed: (testRun?.failureCount ?? 0) > 0)
    /// }
    /// ```
    ///
    /// - Returns: What the tape did.
    /// - Throws: ``CassetteError/saveFailed(file:reason:)``, ``CassetteError/alreadyEjected(file:)``;
    ///   ``CassetteError/backgroundSessionNotRoutable(identifier:)`` when ``configure(_:)`` was
    ///   given a background configuration (thrown once the cassette is saved).
    @discardableResult
    public func eject(testFailed: Bool = false) throws -> Report {
        try eject(announcingWarnings: true, testFailed: testFailed)
    }

    /// ``eject(testFailed:)``; `announcingWarnings` false when the caller tells the test what the report
    /// warns of itself (``verifiedEject(bodyError:)``).
    func eject(announcingWarnings announcesWarnings: Bool, testFailed: Bool = false) throws -> Report {
        try takeDown()
        // Nothing asks the recordings any more once the report is made: a tape still referenced
        // after this (by a caller, by a server thread that has not returned yet) keeps no bodies.
        defer { router.releaseRecordings() }

        let (report, recordedBytes) = try settle(
            router.conclusion(), announcesWarnings: announcesWarnings, discarding: testFailed && !savesWhenTestFails)
        ledger?.append(ledgerRecord(of: report))
        // The recordings' bodies, their encoding and the inner session's buffers were freed (the
        // recorder gave them up, settle(_:) returned) in the heaps of whichever threads made them:
        // glibc keeps a heap per thread, up to 8 per core, and a heap keeps the pages it freed.
        // Without this, each tape that records large bodies leaves about 10 MB more resident than
        // the last (docs/Architecture.md, "Linux facts").
        if recordedBytes >= HeapTrim.everyBytes { HeapTrim.releaseFreedPages() }
        if let identifier = routes.refusedBackgrounds.first { throw CassetteError.backgroundSessionNotRoutable(identifier: identifier) }
        return report
    }

    /// Lets go of a tape that was never used (a server could not be set up for it): its session,
    /// servers and routes end as at ``eject(testFailed:)``, and nothing is saved, reported or kept in a ledger;
    /// a new cassette is not created empty.
    package func discard() {
        guard (try? takeDown()) != nil else { return }
        router.releaseRecordings()
    }

    /// Marks the tape ejected (or throws ``CassetteError/alreadyEjected(file:)``) and ends what
    /// reaches it: the shared-session interception, its servers, its routes.
    private func takeDown() throws {
        let holdsShared = try state.withLock { state -> Bool in
            if state.ejected { throw CassetteError.alreadyEjected(file: file.path) }
            state.ejected = true
            defer { state.holdsSharedSession = false }
            return state.holdsSharedSession
        }
        if holdsShared { SharedSessionInterception.release(router) }
        for server in servers.withLock({ servers in
            defer { servers = [] }
            return servers
        }) { server.stop() }
        routes.detach()
    }

    /// Saves what `conclusion` recorded, as ``SavePolicy`` says, and makes the report; also says
    /// how many body bytes were recorded.
    /// `announcesWarnings`: whether what only ``Report/warnings`` holds is also written to standard
    /// error (not when the trait or `withCassette` ejects: they say it themselves).
    /// `discarding`: the test failed, and what it recorded is not saved.
    private func settle(
        _ conclusion: Router.Conclusion, announcesWarnings: Bool, discarding: Bool
    ) throws -> (Report, recordedBytes: Int) {
        let (recorded, log) = (conclusion.recorded, conclusion.log)
        let verdict = SavePolicy.verdict(
            mode: mode, fileExisted: fileExisted, recorded: recorded.count,
            connectionFailures: log.connectionFailures, file: file, live: isLive, testFailed: discarding,
            createsEmpty: createsEmptyCassette)
        var warnings = platformWarnings + log.warnings
        var saved = false
        var rerecorded: RerecordingChanges?
        switch verdict {
        case .leaveAsIs:
            break
        case .incomplete(let warning):
            warnings.append(warning)
        case .testFailed(let warning):
            // One line, however the tape is ejected: the test's own failure is what it reports.
            warnings.append(warning)
            if options.announcesWarnings { StandardError.warn(warning) }
        case .save(let replacing):
            if options.secretCheck != .off {
                let findings = SecretCheck.findings(in: recorded)
                if !findings.isEmpty, options.secretCheck == .failSave {
                    throw CassetteError.suspectedSecrets(file: file.path, findings: findings)
                }
                for finding in findings {
                    let warning = "\(file.path): possible secret, saved: \(finding). \(SecretCheck.advice)"
                    warnings.append(warning)
                    if options.announcesWarnings { StandardError.warn(warning) }
                }
            }
            let metadata = storedMetadata.current
            // A re-recording writes the scenarios it kept as they were, first.
            (saved, rerecorded) = try CassetteFile.save(
                replacing ? keptScenarios + recorded : recorded, replacing: replacing, ignoring: options.ignoredChanges,
                schema: options.schemaReference,
                metadata: metadata.changed ? metadata.values : nil, to: file)
            if saved, announcesSaves {
                StandardError.write(
                    SaveAnnouncement.line(
                        recorded: recorded.count, file: file, replacing: replacing, fileExisted: fileExisted,
                        keptScenarios: replacing ? keptScenarios.compactMap(\.scenario) : [],
                        currentFolder: FileManager.default.currentDirectoryPath))
            }
        }
        var missesFile: URL?
        let misses = log.unmatched.isEmpty ? nil : MissesFile.document(log.unmatched, mode: mode, recorded: router.recordedInteraction)
        if writesMisses, let misses {
            do {
                let written = try MissesFile.write(misses, cassette: file)
                missesFile = written
                if options.announcesWarnings {
                    StandardError.write(
                        "Cassette: the misses of \(file.lastPathComponent) are in \(ShownPath.of(written)) (`cassette view` shows them as a page)"
                    )
                }
            } catch {
                warnings.append("\(ShownPath.of(MissesFile.file(for: file))): the misses could not be written: \(error.description)")
            }
        }
        // The test most likely sent its requests through another session: said at once, since the
        // empty cassette just saved would replay nothing on CI; and said again on every replay of an
        // empty cassette, even when the test failed (offline, the bypassing request is its failure).
        var bypassed: [VerificationFinding] = []
        if log.requests == 0, options.expectsRequests, !isLive {
            if router.recordsNewRequests {
                if !discarding { bypassed.append(.nothingRecorded(cassette: file, saved: saved)) }
            } else if router.ownCount == 0 {
                bypassed.append(.emptyCassetteReplayed(cassette: file))
            }
        }
        bypassed += routes.watch.bypasses().map { .interceptionBypassed(cassette: file, message: $0) }
        for finding in bypassed {
            warnings.append(finding.description)
            if announcesWarnings, options.announcesWarnings { StandardError.warn(finding.description) }
        }
        let recordedBytes = recorded.reduce(0) { $0 + $1.request.body.data.count + ($1.response?.body.data.count ?? 0) }
        var report = Report(
            file: file, mode: mode, requests: log.requests, replayed: log.replayed, recorded: recorded.count, unmatched: log.unmatched,
            unusedInteractions: conclusion.unused, stale: stale, saved: saved, warnings: warnings,
            redactedMatches: log.redactedMatches, movedTimes: log.movedTimes, missesFile: missesFile)
        report.bypassed = bypassed
        if let misses { report.evidence = Evidence.ofMisses(log.unmatched, document: misses, cassette: file) }
        if let rerecorded, !rerecorded.changes.isEmpty { report.evidence.append(Evidence.ofRerecording(rerecorded, cassette: file)) }
        report.declined = log.declined
        report.isLive = isLive
        return (report, recordedBytes)
    }

    /// What ``Options/staleness`` finds in the interactions replayed so far.
    var stale: Report.Stale? {
        guard let staleness = options.staleness, let judgment = staleJudgment else { return nil }
        let message = staleness.finding(
            replayedAt: router.usage().replayedAt, of: file, test: options.openedBy?.test, at: options.clock())
        return message.map { Report.Stale(message: $0 + judgment.note, fails: judgment.fails) }
    }

    /// What the ledger keeps of the tape's use, made as it is ejected (before the recordings are let go).
    private func ledgerRecord(of report: Report) -> LedgerRecord.Tape {
        let usage = router.usage()
        let facts = FileFacts(file)
        return LedgerRecord.Tape(
            cassette: RealPath.standardized(file.path), beneath: options.underlyingCassettes.map { RealPath.standardized($0.path) },
            test: options.openedBy?.test, testFile: options.openedBy?.file, mode: isLive ? LedgerRecord.liveMode : mode.rawValue,
            opened: openedAt,
            interactions: router.ownCount, replayed: usage.replayed, oldestReplayed: usage.replayedAt.compactMap { $0 }.min(),
            unused: usage.unused,
            unusedShown: report.unusedInteractions, recorded: report.recorded, saved: report.saved,
            misses: report.unmatched.map { "\($0.request.method) \($0.request.url)" }, fileSize: facts.size, fileModified: facts.modified,
            maximumAge: options.staleness?.maximumAge, root: PackageRoots.root(above: options.openedBy?.file ?? file.path)?.path)
    }
}

/// Something that lives as long as a tape and is stopped when it is ejected: a server answering
/// from it (`TapeServer`, in `CassetteServer`). See ``Tape/adopt(_:)``.
package protocol EndsWithTape: AnyObject, Sendable {
    /// Stops it; called once, as the tape is ejected.
    func stop()
}
