import Foundation

/// Reading an interaction's challenges (``Interaction/Challenge``): a cassette's `challenges`,
/// a HAR entry's `_challenges`, the same but for how each format writes the challenged response
/// (`readResponse`, which reports its own problems).
extension JSONTreeReading {
    mutating func readChallenges(
        _ node: JSONNode, at path: JSONPath, readResponse: (inout Self, JSONNode, JSONPath) -> Interaction.Response?
    ) -> [Interaction.Challenge]? {
        guard let elements = readArray(node, at: path, expected: "an array of challenges") else { return nil }
        var challenges: [Interaction.Challenge] = []
        var valid = true
        for (index, element) in elements.enumerated() {
            if let challenge = readChallenge(element, at: path.appending(index), readResponse: readResponse) {
                challenges.append(challenge)
            } else {
                valid = false
            }
        }
        return valid ? challenges : nil
    }

    private mutating func readChallenge(
        _ node: JSONNode, at path: JSONPath, readResponse: (inout Self, JSONNode, JSONPath) -> Interaction.Response?
    ) -> Interaction.Challenge? {
        let expected =
            "a challenge like { \"method\": \"HTTPBasic\", \"realm\": \"api\", \"answer\": \"useCredential\", \"response\": { … } }"
        guard let fields = members(of: node, at: path, expected: expected, allowed: ["method", "realm", "answer", "response"]) else {
            return nil
        }
        let method = required("method", in: fields, of: node, at: path, expecting: "an authentication method like \"HTTPBasic\"")
            .flatMap {
                readChecked(
                    $0, at: path.appending("method"), expected: "an authentication method like \"HTTPBasic\"",
                    rule: CassetteRules.challengeMethodProblem)
            }
        let realm = fields["realm"].flatMap {
            readChecked($0, at: path.appending("realm"), expected: "the realm the server named", rule: CassetteRules.challengeRealmProblem)
        }
        var answer: Interaction.Challenge.Answer?
        if let answerNode = required(
            "answer", in: fields, of: node, at: path, expecting: "how the delegate answered, like \"useCredential\""),
            let text = readString(answerNode, at: path.appending("answer"), expected: "how the delegate answered, like \"useCredential\"")
        {
            let read = CassetteRules.challengeAnswer(text)
            answer = read.answer
            if let problem = read.problem { report(problem, at: path.appending("answer"), offset: answerNode.offset) }
        }
        var response: Interaction.Response?
        if let responseNode = required("response", in: fields, of: node, at: path, expecting: "the challenged 401 or 407 response") {
            response = readResponse(&self, responseNode, path.appending("response"))
            if let read = response, let problem = CassetteRules.challengeResponseProblem(read) {
                let node = responseNode.memberValue(problem.field) ?? responseNode
                report(problem.message, at: path.appending("response").appending(problem.field), offset: node.offset)
                response = nil
            }
        }
        if fields["realm"] != nil, realm == nil { return nil }
        guard let method, let answer, let response else { return nil }
        return Interaction.Challenge(method: method, realm: realm, answer: answer, response: response)
    }
}
