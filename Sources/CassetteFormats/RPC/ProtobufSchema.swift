import Foundation

/// The names of protobuf messages' fields and of the messages each RPC method takes and returns,
/// read from a `FileDescriptorSet` — what `protoc --include_imports --descriptor_set_out=FILE`
/// and `buf build -o FILE.binpb` write.
///
/// A cassette shows a protobuf message by field number (``ProtobufWire``); with a schema its
/// JSON form also names each field (`{ "field": 1, "name": "city", "text": "London" }`) and shows
/// a nested message as fields where the schema says it is one. Nothing else depends on it: names
/// are never read back, and a message reads and matches the same without them.
///
/// Only what naming needs is kept: each message's fields (number, name, and whether it holds a
/// message, text or bytes) and each service's methods (`package.Service/Method` → input and
/// output message). Extensions, enums' values and options are skipped.
package struct ProtobufSchema: Sendable, Equatable {
    /// What a field holds, as far as showing it goes.
    package enum Kind: Sendable, Equatable {
        /// A message (`TYPE_MESSAGE` or `TYPE_GROUP`), by its full name without the leading dot.
        case message(String)
        /// A `string`.
        case text
        /// `bytes`.
        case bytes
        /// A number, `bool` or enum (a packed repeated one is length-delimited on the wire).
        case scalar
    }

    /// A field of a message.
    package struct Field: Sendable, Equatable {
        package var name: String
        package var kind: Kind

        package init(name: String, kind: Kind) {
            self.name = name
            self.kind = kind
        }
    }

    /// The messages an RPC method takes and returns, by full name.
    package struct Method: Sendable, Equatable {
        package var input: String
        package var output: String

        package init(input: String, output: String) {
            self.input = input
            self.output = output
        }
    }

    /// Each message's fields by number, under the message's full name (`cassette.v1.Greeting`,
    /// a nested one `cassette.v1.Greeting.Address`).
    package fileprivate(set) var messages: [String: [Int: Field]] = [:]
    /// Each method under `package.Service/Method`, as a Connect or gRPC-Web URL's path ends.
    package fileprivate(set) var methods: [String: Method] = [:]

    /// A schema that names nothing.
    package init() {}

    /// Whether it names nothing.
    package var isEmpty: Bool { messages.isEmpty && methods.isEmpty }

    /// The method a Connect or gRPC-Web call to `url` invokes: the last two segments of its path
    /// (`https://api.example.com/prefix/cassette.v1.Greeter/Greet` → `cassette.v1.Greeter/Greet`).
    package func method(forURL url: String) -> Method? {
        guard !methods.isEmpty, let path = URLComponents(string: url)?.path else { return nil }
        let segments = path.split(separator: "/", omittingEmptySubsequences: true)
        guard segments.count >= 2 else { return nil }
        return methods["\(segments[segments.count - 2])/\(segments[segments.count - 1])"]
    }

    /// The fields of the message called `name`, or nil when the schema does not have it.
    package func fields(of name: String) -> [Int: Field]? {
        messages[name]
    }

    /// `other`'s messages and methods added to these; where both have one, this schema's stays
    /// (two descriptor sets built with `--include_imports` often both hold the same imports).
    package mutating func add(_ other: ProtobufSchema) {
        messages.merge(other.messages) { kept, _ in kept }
        methods.merge(other.methods) { kept, _ in kept }
    }
}

// MARK: Reading a FileDescriptorSet

extension ProtobufSchema {
    /// Why some bytes are not a `FileDescriptorSet`: where in it (`file[0].message_type[2]`,
    /// descriptor.proto's names) and what was expected.
    package struct ReadError: Error, Sendable, Equatable, CustomStringConvertible {
        /// Where in the set, in descriptor.proto's field names; empty for the set itself.
        package var place: String
        package var message: String

        package var description: String {
            (place.isEmpty ? "" : place + ": ") + message
        }
    }

    /// How deep message declarations may nest before the set is refused, so that no input
    /// recurses without end.
    package static let maximumNesting = 100

    /// The schema a `FileDescriptorSet` declares.
    ///
    /// - Throws: ``ReadError`` naming the place, when the bytes are not a descriptor set.
    package init(descriptorSet data: Data) throws(ReadError) {
        var reader = DescriptorReader()
        try reader.readSet(data)
        self = reader.resolved()
    }
}

/// Reads descriptor.proto's messages (field numbers from google/protobuf/descriptor.proto),
/// then resolves the type names fields refer to.
private struct DescriptorReader {
    /// A field whose message type is named as the file wrote it, resolved once every message is known.
    struct PendingField {
        var message: String
        var number: Int
        var name: String
        var kind: ProtobufSchema.Kind
        var typeName: String?
    }

    var pending: [PendingField] = []
    var declared: Set<String> = []
    var methods: [String: ProtobufSchema.Method] = [:]

    mutating func readSet(_ data: Data) throws(ProtobufSchema.ReadError) {
        let set = try fields(of: data, at: "", expected: "a FileDescriptorSet (protoc --include_imports --descriptor_set_out=FILE)")
        var index = 0
        for field in set where field.number == 1 {
            try readFile(field, at: "file[\(index)]")
            index += 1
        }
        guard index > 0 else {
            throw .init(
                place: "", message: "holds no file: expected a FileDescriptorSet (protoc --include_imports --descriptor_set_out=FILE)")
        }
    }

    private mutating func readFile(_ field: ProtobufWire.Field, at place: String) throws(ProtobufSchema.ReadError) {
        let file = try fields(of: field, at: place, expected: "a FileDescriptorProto")
        let package = try text(file.last { $0.number == 2 }, at: place + ".package") ?? ""
        var messageIndex = 0
        var serviceIndex = 0
        for member in file {
            switch member.number {
            case 4:
                try readMessage(member, scope: package, at: place + ".message_type[\(messageIndex)]", depth: 0)
                messageIndex += 1
            case 6:
                try readService(member, package: package, at: place + ".service[\(serviceIndex)]")
                serviceIndex += 1
            default:
                continue
            }
        }
    }

    private mutating func readMessage(
        _ field: ProtobufWire.Field, scope: String, at place: String, depth: Int
    ) throws(ProtobufSchema.ReadError) {
        guard depth < ProtobufSchema.maximumNesting else {
            throw .init(place: place, message: "messages nest more than \(ProtobufSchema.maximumNesting) deep")
        }
        let message = try fields(of: field, at: place, expected: "a DescriptorProto")
        let name = try requiredName(message, at: place)
        let fullName = scope.isEmpty ? name : scope + "." + name
        declared.insert(fullName)
        var counts = (field: 0, nested: 0)
        for member in message {
            switch member.number {
            case 2:
                try readField(member, of: fullName, at: place + ".field[\(counts.field)]")
                counts.field += 1
            case 3:
                try readMessage(member, scope: fullName, at: place + ".nested_type[\(counts.nested)]", depth: depth + 1)
                counts.nested += 1
            default:
                continue
            }
        }
    }

    private mutating func readField(_ field: ProtobufWire.Field, of message: String, at place: String) throws(ProtobufSchema.ReadError) {
        let members = try fields(of: field, at: place, expected: "a FieldDescriptorProto")
        let name = try requiredName(members, at: place)
        guard case .varint(let number)? = members.last(where: { $0.number == 3 })?.value,
            (1...UInt64(ProtobufWire.maximumFieldNumber)).contains(number)
        else {
            throw .init(place: place + ".number", message: "expected the field's number, 1 to \(ProtobufWire.maximumFieldNumber)")
        }
        var type: UInt64?
        if let written = members.last(where: { $0.number == 5 }) {
            guard case .varint(let value) = written.value else { throw .init(place: place + ".type", message: "expected a type, a varint") }
            type = value
        }
        let typeName = try text(members.last { $0.number == 6 }, at: place + ".type_name")
        let kind: ProtobufSchema.Kind
        switch type {
        case 9: kind = .text
        case 12: kind = .bytes
        case 10, 11: kind = .message("")
        case nil: kind = typeName == nil ? .scalar : .message("")  // resolved later: a message or an enum
        default: kind = .scalar
        }
        pending.append(.init(message: message, number: Int(number), name: name, kind: kind, typeName: typeName))
    }

    private mutating func readService(_ field: ProtobufWire.Field, package: String, at place: String) throws(ProtobufSchema.ReadError) {
        let service = try fields(of: field, at: place, expected: "a ServiceDescriptorProto")
        let name = try requiredName(service, at: place)
        let fullName = package.isEmpty ? name : package + "." + name
        var index = 0
        for member in service where member.number == 2 {
            let methodPlace = place + ".method[\(index)]"
            index += 1
            let method = try fields(of: member, at: methodPlace, expected: "a MethodDescriptorProto")
            let methodName = try requiredName(method, at: methodPlace)
            guard let input = try text(method.last { $0.number == 2 }, at: methodPlace + ".input_type"),
                let output = try text(method.last { $0.number == 3 }, at: methodPlace + ".output_type")
            else {
                throw .init(place: methodPlace, message: "expected both input_type and output_type")
            }
            methods[fullName + "/" + methodName] = .init(
                input: resolve(input, from: package) ?? Self.absolute(input),
                output: resolve(output, from: package) ?? Self.absolute(output))
        }
    }

    /// The schema, each field's message type resolved as protoc resolves names: a leading dot is
    /// a full name; otherwise the innermost enclosing scope that declares it. A name that resolves
    /// to nothing declared (an enum, or a message outside the set) is not a message.
    func resolved() -> ProtobufSchema {
        var schema = ProtobufSchema()
        var messages: [String: [Int: ProtobufSchema.Field]] = [:]
        for name in declared { messages[name] = [:] }
        for field in pending {
            var kind = field.kind
            if case .message = kind {
                if let typeName = field.typeName, let resolved = resolve(typeName, from: field.message) {
                    kind = .message(resolved)
                } else {
                    kind = .scalar  // an enum, or a type the set does not hold
                }
            }
            messages[field.message, default: [:]][field.number] = .init(name: field.name, kind: kind)
        }
        schema.messages = messages
        schema.methods = methods
        return schema
    }

    private func resolve(_ typeName: String, from scope: String) -> String? {
        if typeName.hasPrefix(".") {
            let name = String(typeName.dropFirst())
            return declared.contains(name) ? name : nil
        }
        var enclosing = scope
        while true {
            let candidate = enclosing.isEmpty ? typeName : enclosing + "." + typeName
            if declared.contains(candidate) { return candidate }
            guard !enclosing.isEmpty else { return nil }
            enclosing = enclosing.lastIndex(of: ".").map { String(enclosing[..<$0]) } ?? ""
        }
    }

    private static func absolute(_ typeName: String) -> String {
        typeName.hasPrefix(".") ? String(typeName.dropFirst()) : typeName
    }

    // MARK: Values

    private func fields(
        of field: ProtobufWire.Field, at place: String, expected: String
    ) throws(ProtobufSchema.ReadError) -> [ProtobufWire.Field] {
        guard case .delimited(let delimited) = field.value else {
            throw .init(place: place, message: "expected \(expected), found a number")
        }
        return try fields(of: delimited.data, at: place, expected: expected)
    }

    private func fields(of data: Data, at place: String, expected: String) throws(ProtobufSchema.ReadError) -> [ProtobufWire.Field] {
        guard let fields = ProtobufWire.decodeTopLevel(data) else {
            throw .init(place: place, message: "expected \(expected), found bytes that are not a protobuf message")
        }
        return fields
    }

    private func text(_ field: ProtobufWire.Field?, at place: String) throws(ProtobufSchema.ReadError) -> String? {
        guard let field else { return nil }
        guard case .delimited(let delimited) = field.value, let text = String(data: delimited.data, encoding: .utf8) else {
            throw .init(place: place, message: "expected UTF-8 text")
        }
        return text
    }

    private func requiredName(_ fields: [ProtobufWire.Field], at place: String) throws(ProtobufSchema.ReadError) -> String {
        guard let name = try text(fields.last { $0.number == 1 }, at: place + ".name"), !name.isEmpty else {
            throw .init(place: place + ".name", message: "expected a name")
        }
        return name
    }
}
