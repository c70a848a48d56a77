import Foundation

// What only Cassette writes into a HAR entry (`_cassette`, read strictly: an unknown key is a
// typo) and a browser's own error fields.
extension HARReader {
    // MARK: Cassette's own fields

    struct Extras {
        var error: Interaction.TransportError?
        var latency: Latency?
        var responseURL: String?
        var scenario: String?
        var timing: Interaction.Timing?
        var undated = false
        var untimed = false
    }

    mutating func readExtras(_ node: JSONNode?, at path: JSONPath) -> Extras {
        var extras = Extras()
        guard let node else { return extras }
        guard case .object(let members) = node.value else {
            report(
                "expected Cassette's object of extra fields, found \(Self.describe(node.value))", at: path,
                offset: node.offset)
            return extras
        }
        let known = ["error", "latency", "responseURL", "scenario", "timing", "undated", "untimed"]
        for member in members {
            let memberPath = path.appending(member.key)
            let value = member.value
            switch member.key {
            case "error":
                extras.error = readError(value, at: memberPath)
            case "latency":
                guard let text = readString(value, at: memberPath, expected: "a latency (a string)") else { continue }
                switch Latency.read(text) {
                case .success(let latency): extras.latency = latency
                case .failure(let error): report(error.message, at: memberPath, offset: value.offset)
                }
            case "responseURL":
                extras.responseURL = readChecked(
                    value, at: memberPath, expected: "an absolute URL (a string)", rule: CassetteRules.urlProblem)
            case "scenario":
                extras.scenario = readChecked(
                    value, at: memberPath, expected: "a line saying what it simulates", rule: CassetteRules.scenarioProblem)
            case "timing":
                guard let firstByte = value.memberValue("firstByte").flatMap({ readSeconds($0, at: memberPath.appending("firstByte")) }),
                    let duration = value.memberValue("duration").flatMap({ readSeconds($0, at: memberPath.appending("duration")) })
                else {
                    report("expected { \"firstByte\": SECONDS, \"duration\": SECONDS }", at: memberPath, offset: value.offset)
                    continue
                }
                let timing = Interaction.Timing(firstByte: firstByte, duration: duration)
                if let problem = CassetteRules.timingProblem(timing) {
                    report(problem, at: memberPath, offset: value.offset)
                    continue
                }
                extras.timing = timing
            case "undated", "untimed":
                guard let flag = readBool(value, at: memberPath) else { continue }
                if member.key == "undated" { extras.undated = flag } else { extras.untimed = flag }
            default:
                let guess = Self.closest(to: member.key, in: known).map { " (did you mean \"\($0)\"?)" } ?? ""
                report(
                    "unknown field \(CassetteRules.quoted(member.key))\(guess) in Cassette's fields; expected one of \(known.joined(separator: ", "))",
                    at: memberPath, offset: member.keyOffset)
            }
        }
        return extras
    }

    mutating func readError(_ node: JSONNode, at path: JSONPath) -> Interaction.TransportError? {
        guard let codeNode = required("code", in: node, at: path, expecting: "a URLError.Code name like \"timedOut\"") else { return nil }
        let code: Interaction.TransportError.Code
        switch codeNode.value {
        case .string(let name):
            guard let named = Interaction.TransportError.Code(name: name) else {
                report(CassetteRules.unknownErrorCodeProblem(name), at: path.appending("code"), offset: codeNode.offset)
                return nil
            }
            code = named
        default:
            guard let number = readInteger(codeNode, at: path.appending("code"), expected: "a URLError.Code name or number") else {
                return nil
            }
            code = .init(rawValue: number)
        }
        var afterBytes: Int?
        if let afterBytesNode = node.memberValue("afterBytes") {
            guard let count = readInteger(afterBytesNode, at: path.appending("afterBytes"), expected: "a number of bytes"), count >= 0
            else {
                report(
                    "expected afterBytes to be a number of bytes, zero or more", at: path.appending("afterBytes"),
                    offset: afterBytesNode.offset)
                return nil
            }
            afterBytes = count
        }
        return .init(code: code, afterBytes: afterBytes)
    }

    /// The code for a browser's `_error` text (Chrome: `net::ERR_CONNECTION_REFUSED`), or unknown.
    static func browserErrorCode(_ node: JSONNode?) -> Interaction.TransportError.Code {
        guard let text = node?.value.stringValue else { return .init(rawValue: -1) }
        let table: [(String, Interaction.TransportError.Code)] = [
            ("CONNECTION_REFUSED", .cannotConnectToHost), ("NAME_NOT_RESOLVED", .cannotFindHost),
            ("INTERNET_DISCONNECTED", .notConnectedToInternet), ("TIMED_OUT", .timedOut),
            ("CONNECTION_RESET", .networkConnectionLost), ("CONNECTION_CLOSED", .networkConnectionLost),
            ("ABORTED", .cancelled), ("CERT_", .secureConnectionFailed), ("SSL_", .secureConnectionFailed),
        ]
        return table.first { text.contains($0.0) }?.1 ?? .init(rawValue: -1)
    }

    static func formEncoded(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }
}
