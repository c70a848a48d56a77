import Foundation

extension StubResponse {
    /// This stub response as the answer to `request` (redacted, as errors show it): the head
    /// after ``requestTime``, the body over ``bodySeconds`` (or in ``chunkSizes``), or the error
    /// alone after ``requestTime``.
    func answer(to request: Interaction.Request) -> Answer {
        let responds = error == nil
        let end = requestTime + (responds ? bodySeconds : 0)
        var answer = Answer(
            source: .stub, request: request, response: responds ? Interaction.Response(status: status, headers: headers) : nil,
            body: responds ? body : Data(), endCode: error, endDescription: failureDescription,
            timing: Interaction.Timing(firstByte: requestTime, duration: end), isDelayed: requestTime > 0 || bodySeconds > 0)
        if responds, let chunkSizes { answer.shape = .chunks(sizes: chunkSizes, delay: chunkDelay) }
        return answer
    }
}
