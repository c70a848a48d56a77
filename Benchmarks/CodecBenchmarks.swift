import Cassette
import CassetteTestSupport
import Foundation

/// The codecs on a big cassette: JSON against `JSONSerialization`, HTTP messages and HAR against JSON.
enum CodecBenchmarks {
    /// A cassette of about `megabytes` MB as JSON: a third each of JSON, text and binary bodies.
    static func document(megabytes: Int) -> CassetteDocument {
        var generator = SeededGenerator(seed: 42)
        var interactions: [Interaction] = []
        var size = 0
        let target = megabytes * 1_048_576
        var index = 0
        while size < target {
            let url = "https://bench.example/api/v1/resources/\(index)?page=\(index % 17)&sort=name"
            let body: Interaction.Body
            let contentType: String
            switch index % 3 {
            case 0:
                let items = (0..<24).map {
                    #"{"id":\#(index * 100 + $0),"name":"Resource \#($0)","score":\#(Double(generator.next() % 10_000) / 100),"tags":["a","b"]}"#
                }
                body = .init(Data(#"{"items":[\#(items.joined(separator: ","))],"next":null}"#.utf8), contentType: "application/json")
                contentType = "application/json"
            case 1:
                let lines = (0..<60).map {
                    "line \($0) of resource \(index): the quick brown fox jumps over the lazy dog \(generator.next() % 1000)\n"
                }
                body = .init(Data(lines.joined().utf8), contentType: "text/plain")
                contentType = "text/plain; charset=utf-8"
            default:
                var bytes = [UInt8](repeating: 0, count: 48 * 1024)
                for i in stride(from: 0, to: bytes.count, by: 8) {
                    withUnsafeBytes(of: generator.next()) { word in for j in 0..<8 { bytes[i + j] = word[j] } }
                }
                body = .init(Data(bytes), contentType: "application/octet-stream")
                contentType = "application/octet-stream"
            }
            size += body.form == .base64 ? body.data.count * 4 / 3 : body.data.count
            interactions.append(
                Interaction(
                    recordedAt: Date(timeIntervalSince1970: 1_795_349_730 + Double(index)),
                    request: .init(method: "GET", url: url, headers: ["Accept": "application/json", "User-Agent": "bench/1.0"]),
                    response: .init(status: 200, headers: ["Content-Type": contentType, "Cache-Control": "max-age=60"], body: body),
                    timing: .init(firstByte: 0.05, duration: 0.08)))
            index += 1
        }
        return CassetteDocument(recordedWith: "cassette-bench", interactions: interactions)
    }

    static func pairs(megabytes: Int) throws -> [Harness.Pair] {
        let document = document(megabytes: megabytes)
        let json = try JSONCassetteCodec.encode(document)
        let http = try HTTPMessageCassetteCodec.encode(document)
        let har = try HARCassetteCodec.encode(document)
        let foundationTree = try JSONSerialization.jsonObject(with: json)
        let size = "\(json.count / 1_048_576) MB"
        func time(_ body: () throws -> Void) throws -> Double {
            let start = DispatchTime.now().uptimeNanoseconds
            try body()
            return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        }
        return [
            Harness.Pair(
                name: "json_decode_vs_floor", what: "decode a \(size) JSON cassette", aLabel: "JSONCassetteCodec.decode",
                bLabel: "JSONSerialization.jsonObject", unit: "s", goal: 1.5,
                a: { try time { _ = try JSONCassetteCodec.decode(json) } },
                b: { try time { _ = try JSONSerialization.jsonObject(with: json) } }),
            Harness.Pair(
                name: "json_encode_vs_floor", what: "encode the same cassette", aLabel: "JSONCassetteCodec.encode",
                bLabel: "JSONSerialization.data", unit: "s", goal: 1.5,
                a: { try time { _ = try JSONCassetteCodec.encode(document) } },
                b: { try time { _ = try JSONSerialization.data(withJSONObject: foundationTree, options: [.prettyPrinted]) } }),
            Harness.Pair(
                name: "http_decode_vs_json", what: "decode it as HTTP messages (\(http.count / 1_048_576) MB)",
                aLabel: "HTTPMessageCassetteCodec",
                bLabel: "JSONCassetteCodec", unit: "s", goal: 1.5,
                a: { try time { _ = try HTTPMessageCassetteCodec.decode(http) } },
                b: { try time { _ = try JSONCassetteCodec.decode(json) } }),
            Harness.Pair(
                name: "http_encode_vs_json", what: "encode it as HTTP messages", aLabel: "HTTPMessageCassetteCodec",
                bLabel: "JSONCassetteCodec", unit: "s", goal: 1.5,
                a: { try time { _ = try HTTPMessageCassetteCodec.encode(document) } },
                b: { try time { _ = try JSONCassetteCodec.encode(document) } }),
            Harness.Pair(
                name: "har_decode_vs_json", what: "decode it as HAR (\(har.count / 1_048_576) MB)", aLabel: "HARCassetteCodec",
                bLabel: "JSONCassetteCodec", unit: "s", goal: 1.5,
                a: { try time { _ = try HARCassetteCodec.decode(har) } },
                b: { try time { _ = try JSONCassetteCodec.decode(json) } }),
            Harness.Pair(
                name: "har_encode_vs_json", what: "encode it as HAR", aLabel: "HARCassetteCodec",
                bLabel: "JSONCassetteCodec", unit: "s", goal: 1.5,
                a: { try time { _ = try HARCassetteCodec.encode(document) } },
                b: { try time { _ = try JSONCassetteCodec.encode(document) } }),
        ]
    }
}
