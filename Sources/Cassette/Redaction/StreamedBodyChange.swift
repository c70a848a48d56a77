import Foundation

extension Interaction.Response {
    /// Applies `change` (a redaction) to the body. A streamed body is changed chunk by chunk and
    /// keeps its timing when the changed chunks add up to the changed whole; when they do not (a
    /// secret split across two chunks, a JSON rule that needs the whole document), the changed
    /// whole is kept and arrives in one piece: a secret is never kept for the sake of timing.
    mutating func changeBody(_ change: (Interaction.Body) -> Interaction.Body) {
        let whole = change(body)
        guard whole.data != body.data else { return }
        if let stream {
            let contentType = headers["Content-Type"]
            let chunks = stream.chunks.map { chunk in
                Interaction.StreamedBody.Chunk(at: chunk.at, data: change(Interaction.Body(chunk.data, contentType: contentType)).data)
            }
            let changed = Interaction.StreamedBody(chunks: chunks)
            if changed.data == whole.data, !chunks.contains(where: { $0.data.isEmpty }) {
                self.stream = changed
                return
            }
        }
        body = whole
    }
}
