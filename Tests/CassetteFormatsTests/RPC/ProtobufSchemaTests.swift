import CassetteFormats
import Foundation
import Testing

/// Field names from a `FileDescriptorSet`: read from the one protoc made of
/// `Fixtures/Protobuf/greeter.proto`, written beside the numbers in a JSON cassette, never read
/// back; a set that is not one is refused with its place.
@Suite struct ProtobufSchemaTests {
    static let protoset = Paths.fixtures.appendingPathComponent("Protobuf/greeter.protoset")

    static func schema() throws -> ProtobufSchema {
        try ProtobufSchema(descriptorSet: try Data(contentsOf: protoset))
    }

    @Test func protocsSetNamesEveryFieldAndMethod() throws {
        let schema = try Self.schema()
        #expect(
            schema.methods["cassette.v1.Greeter/Greet"] == .init(input: "cassette.v1.GreetRequest", output: "cassette.v1.GreetResponse"))
        #expect(
            schema.methods["cassette.v1.Greeter/Count"] == .init(input: "cassette.v1.GreetRequest", output: "cassette.v1.GreetResponse"))
        #expect(schema.methods.count == 2)
        #expect(
            schema.fields(of: "cassette.v1.GreetRequest") == [
                1: .init(name: "name", kind: .text),
                3: .init(name: "address", kind: .message("cassette.v1.GreetRequest.Address")),
                4: .init(name: "lucky", kind: .scalar),
                5: .init(name: "avatar", kind: .bytes),
                6: .init(name: "homes", kind: .message("cassette.v1.GreetRequest.HomesEntry")),
                7: .init(name: "mood", kind: .scalar),  // an enum
            ])
        #expect(
            schema.fields(of: "cassette.v1.GreetRequest.Address") == [
                1: .init(name: "city", kind: .text), 2: .init(name: "geo", kind: .message("cassette.v1.Geo")),
            ])
        #expect(
            schema.fields(of: "cassette.v1.GreetRequest.HomesEntry") == [
                1: .init(name: "key", kind: .text), 2: .init(name: "value", kind: .message("cassette.v1.GreetRequest.Address")),
            ])
        #expect(schema.fields(of: "cassette.v1.Geo") == [1: .init(name: "lat", kind: .scalar), 2: .init(name: "lng", kind: .scalar)])
        #expect(schema.fields(of: "cassette.v1.Mood") == nil)
    }

    @Test func aCallsMethodIsTheEndOfItsPath() throws {
        let schema = try Self.schema()
        let greet = ProtobufSchema.Method(input: "cassette.v1.GreetRequest", output: "cassette.v1.GreetResponse")
        #expect(schema.method(forURL: "https://api.example.com/cassette.v1.Greeter/Greet") == greet)
        #expect(schema.method(forURL: "https://api.example.com/rpc/cassette.v1.Greeter/Greet?encoding=proto&message=CgNhZGE") == greet)
        #expect(schema.method(forURL: "https://api.example.com/cassette.v1.Greeter/Wave") == nil)
        #expect(schema.method(forURL: "https://api.example.com/Greet") == nil)
        #expect(ProtobufSchema().method(forURL: "https://api.example.com/cassette.v1.Greeter/Greet") == nil)
    }

    static let london = ProtobufWire.encode([.init(1, .delimited(.text("London")))])
    /// A message whose bytes are all text: a key of 0x0A (a line feed), then a printable length.
    static let village = "Llanfairpwllgwyngyllgogerychwyrndrobwllllantysiliogogogoch"
    static let textLike = ProtobufWire.encode([.init(1, .delimited(.text(village)))])
    static let geo = ProtobufWire.encode([.init(1, .fixed64((51.5).bitPattern)), .init(2, .fixed64((-0.12).bitPattern))])
    static let request = ProtobufWire.encode([
        .init(1, .delimited(.text("ada"))),
        .init(3, .delimited(.bytes(ProtobufWire.encode([.init(1, .delimited(.text("London"))), .init(2, .delimited(.bytes(geo)))])))),
        .init(4, .delimited(.bytes(Data([7, 13])))),
        .init(5, .delimited(.bytes(Data([0x08, 0x01])))),
        .init(
            6,
            .delimited(.bytes(ProtobufWire.encode([.init(1, .delimited(.text("home"))), .init(2, .delimited(.bytes(london)))])))),
        .init(7, .varint(1)),
        .init(9, .varint(3)),
    ])
    static let response = ProtobufWire.encode([.init(1, .delimited(.text("Hello, ada!"))), .init(3, .delimited(.bytes(textLike)))])

    static func call(url: String = "https://api.example.com/cassette.v1.Greeter/Greet") -> CassetteDocument {
        CassetteDocument(interactions: [
            Interaction(
                request: .init(
                    method: "POST", url: url, headers: ["Content-Type": "application/proto"],
                    body: .init(request, contentType: "application/proto")),
                response: .init(
                    status: 200, headers: ["Content-Type": "application/proto"], body: .init(response, contentType: "application/proto")))
        ])
    }

    /// The value at `path` (member names, array indexes) of the cassette `data`, as compact JSON.
    static func compact(_ data: Data, _ path: Any...) throws -> String {
        var node = try JSONParser.parse(data)
        for step in path {
            if let key = step as? String {
                node = try #require(node.memberValue(key))
            } else if let index = step as? Int, case .array(let elements) = node.value {
                node = elements[index]
            }
        }
        return String(decoding: JSONWriter.compact(node.value), as: UTF8.self)
    }

    /// Each field named; nested messages (and a map's entries) shown with their own names;
    /// `from`, whose bytes the wire alone reads as text, shown as the message it is; `avatar`,
    /// bytes that read as fields, shown as bytes; field 9, which the schema does not declare, by
    /// number alone.
    @Test func aCassetteNamesTheFieldsItsMethodDeclares() throws {
        let written = try JSONCassetteCodec.encode(Self.call(), names: try Self.schema())
        let village = Self.village
        #expect(
            try Self.compact(written, "interactions", 0, "request", "body") == """
                {"proto":[{"field":1,"name":"name","text":"ada"},\
                {"field":3,"name":"address","message":[{"field":1,"name":"city","text":"London"},\
                {"field":2,"name":"geo","message":[{"field":1,"name":"lat","fixed64":\((51.5).bitPattern)},\
                {"field":2,"name":"lng","fixed64":\((-0.12).bitPattern)}]}]},\
                {"field":4,"name":"lucky","base64":"Bw0="},\
                {"field":5,"name":"avatar","base64":"CAE="},\
                {"field":6,"name":"homes","message":[{"field":1,"name":"key","text":"home"},\
                {"field":2,"name":"value","message":[{"field":1,"name":"city","text":"London"}]}]},\
                {"field":7,"name":"mood","varint":1},\
                {"field":9,"varint":3}]}
                """)
        #expect(
            try Self.compact(written, "interactions", 0, "response", "body") == """
                {"proto":[{"field":1,"name":"greeting","text":"Hello, ada!"},\
                {"field":3,"name":"from","message":[{"field":1,"name":"city","text":"\(village)"}]}]}
                """)
        // The file as people read it: the name beside the number.
        #expect(String(decoding: written, as: UTF8.self).contains(#"{ "field": 1, "name": "name", "text": "ada" },"#))
        // The same bytes as without names, and the names never read back.
        let read = try JSONCassetteCodec.decode(written)
        #expect(read == Self.call())
        #expect(try JSONCassetteCodec.encode(read) == JSONCassetteCodec.encode(Self.call()))
    }

    @Test func withoutASchemaOrItsMethodTheWireDecides() throws {
        let unnamed = String(decoding: try JSONCassetteCodec.encode(Self.call()), as: UTF8.self)
        #expect(!unnamed.contains("\"name\""))
        // Without the schema, `from` ({ 1: village }) reads as text: a line feed, ":", the name.
        #expect(unnamed.contains(#"{ "field": 3, "text": "\n:\#(Self.village)" }"#), "\(unnamed)")
        let other = Self.call(url: "https://api.example.com/cassette.v1.Other/Greet")
        #expect(try JSONCassetteCodec.encode(other, names: try Self.schema()) == JSONCassetteCodec.encode(other))
    }

    /// A server stream's envelopes are named as the method's output; trailers as they are.
    @Test func aStreamsMessagesAreNamedAsTheMethodsOutput() throws {
        let body =
            RPCEnvelope(flags: 0, payload: Self.response).framed
            + RPCEnvelope(flags: RPCEnvelope.trailers, payload: Data("grpc-status: 0\r\n".utf8)).framed
        let document = CassetteDocument(interactions: [
            Interaction(
                request: .init(method: "POST", url: "https://api.example.com/cassette.v1.Greeter/Count"),
                response: .init(
                    status: 200, headers: ["Content-Type": "application/grpc-web+proto"],
                    stream: .init(
                        chunks: RPCEnvelope.split(body).envelopes.enumerated().map {
                            .init(at: Double($0.offset) / 10, data: $0.element.framed)
                        })))
        ])
        let written = try JSONCassetteCodec.encode(document, names: try Self.schema())
        #expect(
            try Self.compact(written, "interactions", 0, "response", "stream") == """
                {"envelopes":[{"at":0,"proto":[{"field":1,"name":"greeting","text":"Hello, ada!"},\
                {"field":3,"name":"from","message":[{"field":1,"name":"city","text":"\(Self.village)"}]}]},\
                {"at":0.1,"trailers":["grpc-status: 0"]}]}
                """)
        #expect(try JSONCassetteCodec.decode(written) == document)
    }

    @Test func aNameThatIsNotTextIsRefusedWithItsPlace() throws {
        let text = """
            { "version": 1, "interactions": [ { "request": { "method": "POST", "url": "https://a.example/s.v1.S/M" },
              "response": { "status": 200, "headers": { "Content-Type": "application/proto" },
                "body": { "proto": [ { "field": 1, "name": 7, "text": "ada" } ] } } } ] }
            """
        let error = try #require(throws: CassetteFormatError.self) { try JSONCassetteCodec.decode(Data(text.utf8), file: "c.json") }
        #expect(
            error.problems.map(\.description) == [
                "interactions[0].response.body.proto[0].name: expected the field's name, a string, found 7"
            ])
    }

    // MARK: Sets that are not one

    static func set(_ files: [[ProtobufWire.Field]]) -> Data {
        ProtobufWire.encode(files.map { .init(1, .delimited(.bytes(ProtobufWire.encode($0)))) })
    }

    static func message(_ name: String, _ members: [ProtobufWire.Field]) -> ProtobufWire.Field {
        .init(4, .delimited(.bytes(ProtobufWire.encode([.init(1, .delimited(.text(name)))] + members))))
    }

    static func field(_ name: String, _ number: UInt64?, type: UInt64, typeName: String? = nil) -> ProtobufWire.Field {
        var members: [ProtobufWire.Field] = [.init(1, .delimited(.text(name)))]
        if let number { members.append(.init(3, .varint(number))) }
        members.append(.init(5, .varint(type)))
        if let typeName { members.append(.init(6, .delimited(.text(typeName)))) }
        return .init(2, .delimited(.bytes(ProtobufWire.encode(members))))
    }

    static func refusal(_ data: Data) -> String? {
        do {
            _ = try ProtobufSchema(descriptorSet: data)
            return nil
        } catch {
            return error.description
        }
    }

    @Test func whatIsNotADescriptorSetIsRefusedWithItsPlace() {
        #expect(
            Self.refusal(Data("{\"file\": []}".utf8))
                == "expected a FileDescriptorSet (protoc --include_imports --descriptor_set_out=FILE), found bytes that are not a protobuf message"
        )
        #expect(Self.refusal(Data()) == "holds no file: expected a FileDescriptorSet (protoc --include_imports --descriptor_set_out=FILE)")
        #expect(
            Self.refusal(Self.set([[.init(2, .delimited(.text("p"))), Self.message("M", [Self.field("id", nil, type: 5)])]]))
                == "file[0].message_type[0].field[0].number: expected the field's number, 1 to 536870911")
        #expect(
            Self.refusal(Self.set([[], [Self.message("", [])]])) == "file[1].message_type[0].name: expected a name")
        #expect(Self.refusal(Self.set([[.init(4, .varint(3))]])) == "file[0].message_type[0]: expected a DescriptorProto, found a number")
        var nested = ProtobufWire.Field(3, .delimited(.bytes(ProtobufWire.encode([.init(1, .delimited(.text("N")))]))))
        for _ in 0..<ProtobufSchema.maximumNesting {
            nested = .init(3, .delimited(.bytes(ProtobufWire.encode([.init(1, .delimited(.text("N"))), nested]))))
        }
        let deep = Self.refusal(Self.set([[Self.message("M", [nested])]]))
        #expect(deep?.hasSuffix(": messages nest more than 100 deep") == true, "\(deep ?? "read")")
    }

    /// A type name without its leading dot is resolved from the innermost scope outward, as
    /// protoc resolves one; a name that resolves to nothing declared is no message.
    @Test func relativeTypeNamesResolveAsProtocResolvesThem() throws {
        let inner = ProtobufWire.Field(
            3, .delimited(.bytes(ProtobufWire.encode([.init(1, .delimited(.text("Item"))), Self.field("id", 1, type: 5)]))))
        let data = Self.set([
            [
                .init(2, .delimited(.text("shop"))),
                Self.message("Item", [Self.field("sku", 1, type: 9)]),
                Self.message(
                    "Order",
                    [
                        inner, Self.field("line", 1, type: 11, typeName: "Item"), Self.field("top", 2, type: 11, typeName: "shop.Item"),
                        Self.field("gone", 3, type: 11, typeName: "Missing"),
                    ]),
            ]
        ])
        let schema = try ProtobufSchema(descriptorSet: data)
        #expect(
            schema.fields(of: "shop.Order") == [
                1: .init(name: "line", kind: .message("shop.Order.Item")), 2: .init(name: "top", kind: .message("shop.Item")),
                3: .init(name: "gone", kind: .scalar),
            ])
    }

    /// The inputs kept for the `descriptor_sets` fuzz target (`Fuzz/Regressions`): each reads as
    /// a set, and names cassettes that read back to the same bytes.
    @Test func theFuzzTargetsKeptInputs() throws {
        let folder = Paths.packageRoot.appendingPathComponent("Fuzz/Regressions/descriptor_sets")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(names == ["echo", "greeter", "users"])
        for name in names {
            let data = try Data(contentsOf: folder.appendingPathComponent(name))
            #expect(try ProtobufSchema(descriptorSet: data).methods.isEmpty == false, "\(name)")
            #expect(ProtobufSchema.namingProblem(ofDescriptorSet: data, message: data) == nil, "\(name)")
            #expect(ProtobufSchema.namingProblem(ofDescriptorSet: data, message: Self.request) == nil, "\(name)")
        }
    }

    @Test func twoSetsMergeTheFirstKeepingWhatBothDeclare() throws {
        var schema = try ProtobufSchema(descriptorSet: Self.set([[Self.message("M", [Self.field("first", 1, type: 9)])]]))
        schema.add(
            try ProtobufSchema(descriptorSet: Self.set([[Self.message("M", [Self.field("second", 1, type: 9)]), Self.message("N", [])]])))
        #expect(schema.fields(of: "M") == [1: .init(name: "first", kind: .text)])
        #expect(schema.fields(of: "N") == [:])
    }
}
