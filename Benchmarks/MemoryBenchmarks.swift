import Cassette
import CassetteTestSupport
import CassetteTools
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Peak resident memory while replaying or recording one big body, measured in a child process
/// (a fresh `CassetteBench --child …`), so that nothing else this process did counts.
enum MemoryBenchmarks {
    /// Kilobytes of `field` (`VmRSS`, `VmHWM`) in `/proc/self/status`; nil where there is none.
    static func statusKilobytes(_ field: String) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix(field + ":") {
            return Int(line.dropFirst(field.count + 1).trimmingCharacters(in: .whitespaces).split(separator: " ").first ?? "")
        }
        return nil
    }

    /// Runs the child and returns (peak growth in bytes) / `size`.
    static func ratio(child arguments: [String], size: Int) throws -> Double {
        #if !(os(Linux) || os(macOS))
        // Xcode builds every executable for iOS too; nothing starts a process there.
        throw Requests.Failed(description: "the memory benchmarks start a child process: run CassetteBench on Linux or macOS")
        #else
        let child = try SpawnedProcess.run(
            executable: URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL.path, ["--child"] + arguments)
        let output = String(decoding: child.output, as: UTF8.self)
        guard child.status == 0, let line = output.split(separator: "\n").first(where: { $0.hasPrefix("PEAK ") }),
            let growth = Double(line.dropFirst(5))
        else {
            throw Requests.Failed(
                description: "the memory child failed (\(child.status)): \(output)\(String(decoding: child.errors, as: UTF8.self))")
        }
        return growth / Double(size)
        #endif
    }

    /// `memory_replay_100mb`: replaying one body of `size` bytes from a JSON cassette.
    static func replayPair(size: Int, folder: URL, runs: Int) throws -> Harness.Pair {
        let file = folder.appendingPathComponent("memory-replay.json")
        var bytes = [UInt8](repeating: 0, count: size)
        var generator = SeededGenerator(seed: 7)
        for i in stride(from: 0, to: size - 7, by: 8) { withUnsafeBytes(of: generator.next()) { for j in 0..<8 { bytes[i + j] = $0[j] } } }
        let document = CassetteDocument(interactions: [
            Interaction(
                request: .init(url: "https://bench.example/big"),
                response: .init(
                    status: 200, headers: ["Content-Type": "application/octet-stream"],
                    body: .init(Data(bytes), contentType: "application/octet-stream")))
        ])
        try JSONCassetteCodec.encode(document).write(to: file)
        return pair(
            name: "memory_replay_100mb", what: "replay one \(size / 1_048_576) MB body", aLabel: "peak RSS growth",
            child: ["memory-replay", file.path, String(size)], size: size)
    }

    /// `memory_record_100mb`: recording one body of `size` bytes from the loopback server and saving it.
    static func recordPair(url: String, size: Int, folder: URL) -> Harness.Pair {
        pair(
            name: "memory_record_100mb", what: "record and save one \(size / 1_048_576) MB body", aLabel: "peak RSS growth",
            child: ["memory-record", url, folder.appendingPathComponent("memory-record.json").path, String(size)], size: size)
    }

    private static func pair(name: String, what: String, aLabel: String, child: [String], size: Int) -> Harness.Pair {
        Harness.Pair(
            name: name, what: what, aLabel: aLabel, bLabel: "body size", unit: "bytes", goal: 2.0,
            a: { try ratio(child: child, size: size) * Double(size) }, b: { Double(size) })
    }

    // MARK: The child

    /// `--child memory-replay FILE SIZE` / `--child memory-record URL FILE SIZE`: does it and prints
    /// `PEAK <bytes>`, the growth of peak resident memory over what the process held before.
    static func child(_ arguments: [String]) async throws {
        guard let start = statusKilobytes("VmRSS") else { throw Requests.Failed(description: "no /proc/self/status here") }
        switch (arguments.first, arguments.count) {
        case ("memory-replay", 3):
            guard let size = Int(arguments[2]), let url = URL(string: "https://bench.example/big") else { throw usage(arguments) }
            let tape = try Tape(file: URL(fileURLWithPath: arguments[1]), mode: .none, environment: [:])
            try await Requests.fetch(url, on: tape.session, bodySize: size)
            try tape.eject()
        case ("memory-record", 4):
            guard let size = Int(arguments[3]), let url = URL(string: arguments[1]) else { throw usage(arguments) }
            let tape = try Tape(file: URL(fileURLWithPath: arguments[2]), mode: .all, options: .init(redaction: .none), environment: [:])
            try await Requests.fetch(url, on: tape.session, bodySize: size)
            try tape.eject()
        default:
            throw usage(arguments)
        }
        guard let peak = statusKilobytes("VmHWM") else { throw Requests.Failed(description: "no VmHWM in /proc/self/status") }
        print("PEAK \((peak - start) * 1024)")
    }

    private static func usage(_ arguments: [String]) -> Requests.Failed {
        Requests.Failed(description: "unknown child \(arguments); expected memory-replay FILE SIZE or memory-record URL FILE SIZE")
    }
}
