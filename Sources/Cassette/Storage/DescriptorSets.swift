import CassetteFormats
import Foundation

/// The `FileDescriptorSet` files kept beside cassettes, which name the fields of the protobuf
/// messages a JSON cassette shows (``ProtobufSchema``).
///
/// Every file in a cassette's folder whose name ends in `.protoset` (what `protoc
/// --include_imports --descriptor_set_out=Cassettes/api.protoset` is usually given, and grpcurl
/// reads) or `.binpb` (`buf build -o Cassettes/api.binpb`) is read when a cassette holding
/// Connect or gRPC-Web messages is written there. A file that is not a descriptor set is named in
/// a warning, and the cassette is written without the names it would have given: the recording
/// is never lost for a file that only names its fields.
package enum DescriptorSets {
    /// The endings of the files read.
    package static let fileExtensions: Set<String> = ["protoset", "binpb"]

    /// The schema every descriptor set in `folder` declares (the first file, by name, wins where
    /// two declare one message), and for each file that could not be read, why.
    package static func schema(in folder: URL) -> (schema: ProtobufSchema, problems: [String]) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        var schema = ProtobufSchema()
        var problems: [String] = []
        for name in names.sorted() where fileExtensions.contains((name as NSString).pathExtension.lowercased()) {
            let file = folder.appendingPathComponent(name)
            do {
                schema.add(try ProtobufSchema(descriptorSet: try Data(contentsOf: file)))
            } catch let error as ProtobufSchema.ReadError {
                problems.append("\(file.path): \(error.description)")
            } catch {
                problems.append("\(file.path): cannot be read (\((error as NSError).localizedDescription))")
            }
        }
        return (schema, problems)
    }

    /// The names for writing `document` to `file`: nil, without reading the folder, when the
    /// document holds no protobuf message or `file` is not a JSON cassette; problems are warned
    /// of on standard error.
    package static func names(for document: CassetteDocument, writtenTo file: URL) -> ProtobufSchema? {
        guard CassetteFormat(path: file.path) == .json, document.interactions.contains(where: holdsMessages) else { return nil }
        let found = schema(in: file.deletingLastPathComponent())
        for problem in found.problems {
            StandardError.warn("\(problem); the cassette \(file.lastPathComponent) is written without the field names it would give")
        }
        return found.schema.isEmpty ? nil : found.schema
    }

    /// Whether a JSON cassette shows a body of `interaction` message by message.
    static func holdsMessages(_ interaction: Interaction) -> Bool {
        let forms: Set<Interaction.Body.Form> = [.protobuf, .envelopes]
        if forms.contains(interaction.request.body.form) { return true }
        guard let response = interaction.response else { return false }
        if let stream = response.stream { return stream.listName(contentType: response.headers["Content-Type"]) == "envelopes" }
        return forms.contains(response.body.form)
    }
}
