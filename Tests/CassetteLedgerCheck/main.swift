import Cassette
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// A test process for the ledger tests: opens the tapes `LEDGER_CHECK_TAPES` lists, in parallel,
// replays the requests each names through it, ejects them, and exits normally (the ledger's end
// record is written at exit). `CASSETTE_LEDGER` and `CASSETTE_RUN_ID` come from the environment;
// the arguments are left for the test to make the run look filtered (`--filter Feed`).
//
// LEDGER_CHECK_TAPES: [{"cassette": PATH, "test": NAME, "requests": [URL...], "staleAfterDays": N?}]

struct Planned: Decodable {
    var cassette: String
    var test: String
    var requests: [String]
    var staleAfterDays: Double?
}

let environment = ProcessInfo.processInfo.environment
guard let text = environment["LEDGER_CHECK_TAPES"], let plan = try? JSONDecoder().decode([Planned].self, from: Data(text.utf8)) else {
    FileHandle.standardError.write(Data("LEDGER_CHECK_TAPES is missing or not a list of tapes\n".utf8))
    exit(2)
}

let failures = try await withThrowingTaskGroup(of: String?.self) { group in
    for planned in plan {
        group.addTask {
            var options = Tape.Options()
            options.openedBy = (test: planned.test, file: #filePath)
            if let days = planned.staleAfterDays { options.staleness = .warn(after: days * 86_400) }
            let tape = try Tape(file: URL(fileURLWithPath: planned.cassette), mode: .none, options: options, environment: environment)
            var failure: String?
            for address in planned.requests {
                guard let url = URL(string: address) else { continue }
                do {
                    _ = try await tape.session.data(from: url)
                } catch {
                    failure = "\(planned.test): \(address): \(error)"
                }
            }
            _ = try tape.eject()
            return failure
        }
    }
    var failures: [String] = []
    for try await failure in group { if let failure { failures.append(failure) } }
    return failures
}
for failure in failures { print("FAILED \(failure)") }
print("TAPES \(plan.count)")
