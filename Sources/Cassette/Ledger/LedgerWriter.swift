import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Appends what this process's tapes did to the suite ledger (``Ledger``): one file per process
/// in its run's folder (`RUN/PID.jsonl`), so parallel test processes never write the same file,
/// and one `write` per record under a lock, so parallel tests in one process never interleave.
/// The file starts with the process's record and ends, when the process exits normally, with
/// an end record; `CASSETTE_SUMMARY=1` prints the run's summary line then.
final class LedgerWriter: Sendable {
    /// The ledger folder and its run folder.
    let folder: URL
    let run: TestRun
    let file: URL
    private let descriptor: Int32
    private let lock = Locked(())
    /// The tapes this process recorded in it, for the summary at exit.
    private let tapes = Locked<[LedgerRecord.Tape]>([])

    private init(folder: URL, run: TestRun, file: URL, descriptor: Int32) {
        self.folder = folder
        self.run = run
        self.file = file
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }

    /// The writer for the ledger in `folder`, opened (its run folder made, the process record
    /// written) the first time; nil, with a warning on standard error once, when it cannot be.
    static func shared(in folder: URL, environment: [String: String]) -> LedgerWriter? {
        let key = RealPath.standardized(folder.path)
        return registry.withLock { registry -> LedgerWriter? in
            if let known = registry.writers[key] { return known }
            if registry.failed.contains(key) || registry.closed { return nil }
            do {
                let writer = try open(in: folder, environment: environment)
                registry.writers[key] = writer
                if !registry.exitHandlerInstalled {
                    registry.exitHandlerInstalled = true
                    atexit { LedgerWriter.processExits() }
                }
                return writer
            } catch {
                registry.failed.insert(key)
                StandardError.warn(
                    "the ledger in \(folder.path) cannot be written (\(error)); "
                        + "this process's tapes are not in it. Set CASSETTE_LEDGER to a writable folder, or to off.")
                return nil
            }
        }
    }

    private struct Registry {
        var writers: [String: LedgerWriter] = [:]
        var failed: Set<String> = []
        var exitHandlerInstalled = false
        /// The process is exiting: the ledgers have their end.
        var closed = false
    }

    private static let registry = Locked(Registry())

    private static func open(in folder: URL, environment: [String: String]) throws -> LedgerWriter {
        let run = TestRun.current(environment: environment)
        let runFolder = folder.appendingPathComponent(run.id, isDirectory: true)
        let isNewRun = !FileManager.default.fileExists(atPath: runFolder.path)
        try FileManager.default.createDirectory(at: runFolder, withIntermediateDirectories: true)
        if isNewRun { Ledger(folder: folder).removeOldRuns(keeping: runFolder.lastPathComponent) }
        let file = runFolder.appendingPathComponent("\(getpid()).jsonl")
        let descriptor = systemOpen(file.path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw LedgerOpenError(reason: String(cString: strerror(errno))) }
        let writer = LedgerWriter(folder: folder, run: run, file: file, descriptor: descriptor)
        writer.write(
            .process(
                LedgerRecord.Process(
                    pid: getpid(), started: ProcessStart.time, arguments: run.arguments, runnerArguments: run.runnerArguments,
                    filter: run.filter, shard: environment[Ledger.shardVariable].flatMap { $0.isEmpty ? nil : $0 })))
        return writer
    }

    private struct LedgerOpenError: Error, CustomStringConvertible {
        var reason: String
        var description: String { reason }
    }

    /// Appends what a tape did: encoded and written on the ledger's own queue, so that ejecting
    /// a tape pays only for handing the record over (`ledger_cost` in the benchmarks).
    func append(_ tape: LedgerRecord.Tape) {
        if keepsTapes { tapes.withLock { $0.append(tape) } }
        queue.async { self.write(.tape(tape)) }
    }

    /// Where records are written, in the order they were handed over.
    private let queue = DispatchQueue(label: "Cassette.ledger")

    /// Whether the process prints the summary at exit, which counts its tapes.
    private let keepsTapes = EnvironmentSwitch.isOn(RunSummary.variable, in: ProcessInfo.processInfo.environment) == true

    private func write(_ record: LedgerRecord) {
        let line = record.line
        lock.withLock { _ in
            line.withUnsafeBytes { raw in
                guard let base = raw.baseAddress else { return }
                var offset = 0
                while offset < raw.count {
                    let written = systemWrite(descriptor, base + offset, raw.count - offset)
                    if written < 0 {
                        if errno == EINTR { continue }
                        return
                    }
                    offset += written
                }
            }
        }
    }

    /// At exit: each ledger gets its end record; with `CASSETTE_SUMMARY=1`, the summary line.
    private static func processExits() {
        // Taken out of the registry: released (their files closed) once this returns, so that
        // nothing they hold is still reachable only from a global when the process ends.
        let writers = registry.withLock { registry in
            defer { (registry.writers, registry.closed) = ([:], true) }
            return Array(registry.writers.values)
        }
        for writer in writers {
            writer.queue.sync {}
            writer.write(.end(LedgerRecord.End(ended: Date())))
            if writer.keepsTapes {
                let line = RunSummary.line(for: writer.tapes.current, ledger: Ledger(folder: writer.folder), run: writer.run)
                StandardError.write(line)
            }
        }
    }
}

// The C library's `open` and `write`, under names the type's own `open` and `write` do not hide.
private func systemOpen(_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32 { open(path, flags, mode) }
private func systemWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int { write(descriptor, bytes, count) }
