import Foundation

/// Reading a cassette's `metadata` (``CassetteDocument/metadata``), shared by the formats whose
/// files are JSON or hold it as JSON (the JSON cassette's `metadata`, HAR's `log._cassette.metadata`,
/// the `.http` file's `# metadata:` line).
extension JSONTreeReading {
    /// `"metadata": { "key": any JSON, … }`: an object, no reserved or duplicate key.
    mutating func readMetadata(_ node: JSONNode, at path: JSONPath) -> [String: MetadataValue]? {
        guard case .object(let members) = node.value else {
            report(
                "expected the cassette's metadata as an object like { \"apiVersion\": \"2026-10-01\" }, found \(Self.describe(node.value))",
                at: path, offset: node.offset)
            return nil
        }
        var metadata: [String: MetadataValue] = [:]
        var valid = true
        for member in members {
            let memberPath = path.appending(member.key)
            if metadata[member.key] != nil {
                report("duplicate key \(CassetteRules.quoted(member.key)) in the metadata", at: memberPath, offset: member.keyOffset)
                valid = false
            } else if let problem = CassetteRules.metadataKeyProblem(member.key) {
                report(problem, at: memberPath, offset: member.keyOffset)
                valid = false
            } else if let duplicate = member.value.value.firstDuplicateKey() {
                report(
                    "duplicate key \(CassetteRules.quoted(duplicate.key)) in the metadata",
                    at: JSONPath(memberPath.components + duplicate.path.components), offset: duplicate.offset)
                valid = false
            }
            let value = MetadataValue(json: member.value.value)
            if let problem = value.problem {
                // What the writer could not write back (a value built in code, never one read).
                report(problem, at: memberPath, offset: member.value.offset)
                valid = false
            }
            metadata[member.key] = value
        }
        return valid ? metadata : nil
    }
}
