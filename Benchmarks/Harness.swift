import Foundation

/// Runs benchmark pairs interleaved (A B A B …) so that both sides see the same machine noise,
/// and reports the median of each side and their ratio.
struct Harness {
    /// One compared pair: A is Cassette, B is the floor it is measured against.
    struct Pair {
        var name: String
        var what: String
        var aLabel: String
        var bLabel: String
        var unit: String
        var goal: Double
        /// Runs A once and returns its measurement (seconds per operation, or a ratio for memory).
        var a: () async throws -> Double
        var b: () async throws -> Double
    }

    struct Result {
        var name: String
        var what: String
        var aLabel: String
        var bLabel: String
        var aMedian: Double
        var bMedian: Double
        var unit: String
        var runs: Int
        var goal: Double
        var ratio: Double { bMedian > 0 ? aMedian / bMedian : .infinity }
    }

    var runs: Int
    var warmUp: Int = 1
    /// `CASSETTE_BENCH_SIDE=a` (or `b`) runs one side only, for a profile of that side alone
    /// (`perf record`); the other side's median is then 0 and the ratio meaningless.
    var side = Harness.oneSide

    /// The side `CASSETTE_BENCH_SIDE` names, or nil when both run.
    static let oneSide = ProcessInfo.processInfo.environment["CASSETTE_BENCH_SIDE"]
    /// `CASSETTE_BENCH_RUNS=N` runs every pair `N` times instead, for a profile with enough samples.
    var runsOverride = ProcessInfo.processInfo.environment["CASSETTE_BENCH_RUNS"].flatMap { Int($0) }.map { max(1, $0) }

    /// Runs `pair` `runs` times each way, interleaved, after a warm-up of each.
    func run(_ pair: Pair) async throws -> Result {
        let runsA = side != "b"
        let runsB = side != "a"
        for _ in 0..<warmUp {
            if runsA { _ = try await pair.a() }
            if runsB { _ = try await pair.b() }
        }
        var a: [Double] = []
        var b: [Double] = []
        let runs = runsOverride ?? self.runs
        for round in 0..<runs {
            // Alternate which side goes first, so neither always follows the other.
            if round.isMultiple(of: 2) {
                if runsA { a.append(try await pair.a()) }
                if runsB { b.append(try await pair.b()) }
            } else {
                if runsB { b.append(try await pair.b()) }
                if runsA { a.append(try await pair.a()) }
            }
        }
        return Result(
            name: pair.name, what: pair.what, aLabel: pair.aLabel, bLabel: pair.bLabel,
            aMedian: Self.median(a), bMedian: Self.median(b), unit: pair.unit, runs: runs, goal: pair.goal)
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return 0 }
        let middle = sorted.count / 2
        return sorted.count.isMultiple(of: 2) ? (sorted[middle - 1] + sorted[middle]) / 2 : sorted[middle]
    }

    /// Seconds per operation of `operations` runs of `body`, timed as one block.
    static func secondsPerOperation(_ operations: Int, _ body: () async throws -> Void) async rethrows -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        try await body()
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        return elapsed / Double(max(1, operations))
    }

    /// The process's CPU seconds (user and system, every thread) per operation of `operations`
    /// runs of `body`: what the work costs, whatever the waiting between.
    static func cpuSecondsPerOperation(_ operations: Int, _ body: () async throws -> Void) async rethrows -> Double {
        let start = processCPUSeconds()
        try await body()
        return (processCPUSeconds() - start) / Double(max(1, operations))
    }

    static func processCPUSeconds() -> Double {
        var usage = rusage()
        #if canImport(Glibc)
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        #else
        getrusage(RUSAGE_SELF, &usage)
        #endif
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }
}

/// The human table and the machine-readable lines.
enum Report {
    static func table(_ results: [Harness.Result]) -> String {
        var rows = [["benchmark", "A (Cassette)", "B (floor)", "A median", "B median", "ratio", "goal", ""]]
        for result in results {
            rows.append([
                result.name, result.aLabel, result.bLabel, format(result.aMedian, result.unit), format(result.bMedian, result.unit),
                String(format: "%.3f", result.ratio), String(format: "≤ %.2f", result.goal),
                result.ratio <= result.goal ? "ok" : "ABOVE GOAL",
            ])
        }
        let widths = (0..<rows[0].count).map { column in rows.map { $0[column].count }.max() ?? 0 }
        return rows.map { row in
            row.enumerated().map { $1.padding(toLength: widths[$0], withPad: " ", startingAt: 0) }.joined(separator: "  ")
        }.joined(separator: "\n")
    }

    static func benchLine(_ result: Harness.Result) -> String {
        "BENCH name=\(result.name) ratio=\(String(format: "%.4f", result.ratio)) a_median=\(String(format: "%.6g", result.aMedian)) "
            + "b_median=\(String(format: "%.6g", result.bMedian)) unit=\(result.unit) n=\(result.runs)"
    }

    private static func format(_ value: Double, _ unit: String) -> String {
        switch unit {
        case "s/op", "cpu s/op":
            let time = value < 1e-3 ? String(format: "%.1f µs", value * 1e6) : String(format: "%.2f ms", value * 1e3)
            return unit == "s/op" ? time : time + " CPU"
        case "s": return String(format: "%.3f s", value)
        case "bytes": return String(format: "%.1f MB", value / 1_048_576)
        default: return String(format: "%.4g %@", value, unit)
        }
    }
}
