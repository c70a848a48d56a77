import Foundation

// An interaction's `latency`: each form the docs name (instant, recorded, fixed times, scaled, a
// download speed), read with its path when it is none of them.
extension JSONCassetteReader {
    static let latencyForms =
        "\"instant\", \"recorded\", or an object like { \"firstByte\": 0.3, \"duration\": 0.6 }, "
        + "{ \"scaled\": 0.5 } or { \"bytesPerSecond\": \"edge\", \"firstByte\": 0.1 }"

    mutating func readLatency(_ node: JSONNode, at path: JSONPath) -> Latency? {
        if let name = node.value.stringValue {
            switch name {
            case "instant": return .instant
            case "recorded": return .recorded
            default:
                report("unknown latency \(CassetteRules.quoted(name)); expected \(Self.latencyForms)", at: path, offset: node.offset)
                return nil
            }
        }
        guard
            let fields = members(
                of: node, at: path, expected: Self.latencyForms, allowed: ["firstByte", "duration", "scaled", "bytesPerSecond"])
        else { return nil }
        let latency: Latency
        if let factorNode = fields["scaled"] {
            guard fields.count == 1 else {
                report(
                    "\"scaled\" multiplies the recorded timing and takes no other field; expected { \"scaled\": 0.5 }", at: path,
                    offset: node.offset)
                return nil
            }
            guard let factor = readSeconds(factorNode, at: path.appending("scaled"), expected: "a scale factor like 0.5") else {
                return nil
            }
            latency = .scaled(factor)
        } else if let speedNode = fields["bytesPerSecond"] {
            guard fields["duration"] == nil else {
                report(
                    "give \"duration\" or \"bytesPerSecond\", not both: a download speed decides the duration", at: path,
                    offset: node.offset)
                return nil
            }
            let firstByte = readOptional(fields["firstByte"], default: 0) { $0.readSeconds($1, at: path.appending("firstByte")) }
            guard let speed = readSpeed(speedNode, at: path.appending("bytesPerSecond")), let firstByte else { return nil }
            latency = .downloadSpeed(speed, firstByte: firstByte)
        } else {
            guard let timing = readFirstByteAndDuration(fields, of: node, at: path) else { return nil }
            latency = .fixed(firstByte: timing.firstByte, duration: timing.duration)
        }
        if let problem = latency.problem {
            report(problem, at: path, offset: node.offset)
            return nil
        }
        return latency
    }

    /// The required `firstByte` and `duration` of a timing or a fixed latency, each reported when missing or invalid.
    mutating func readFirstByteAndDuration(
        _ fields: JSONFields, of node: JSONNode, at path: JSONPath
    ) -> Interaction.Timing? {
        var values: [Double] = []
        for name in ["firstByte", "duration"] {
            guard let valueNode = required(name, in: fields, of: node, at: path, expecting: "a number of seconds"),
                let seconds = readSeconds(valueNode, at: path.appending(name))
            else { continue }
            values.append(seconds)
        }
        return values.count == 2 ? Interaction.Timing(firstByte: values[0], duration: values[1]) : nil
    }

    mutating func readSpeed(_ node: JSONNode, at path: JSONPath) -> DownloadSpeed? {
        let names = DownloadSpeed.presets.compactMap(\.name)
        if let name = node.value.stringValue {
            if let preset = DownloadSpeed.preset(named: name) { return preset }
            report(
                "unknown download speed \(CassetteRules.quoted(name)); expected a number of bytes per second or one of \(names.joined(separator: ", "))",
                at: path, offset: node.offset)
            return nil
        }
        guard
            let bytesPerSecond = readSeconds(
                node, at: path, expected: "a number of bytes per second or one of \(names.joined(separator: ", "))")
        else {
            return nil
        }
        if let problem = CassetteRules.speedProblem(bytesPerSecond) {
            report(problem, at: path, offset: node.offset)
            return nil
        }
        return DownloadSpeed(bytesPerSecond: bytesPerSecond)
    }
}
