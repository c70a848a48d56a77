import Cassette
import CassetteTestSupport
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A body that cannot be read fails its request with an error that says so: never an empty
/// body sent, recorded or matched in its place.
@Suite struct RequestBodyTests {
    @Test(arguments: FetchStyle.allCases)
    func aStreamAlreadyReadFailsTheRequestAndSendsNothing(style: FetchStyle) async throws {
        try await withScratchTape { scratch in
            let server = scratch.server
            let tape = try Tape(file: scratch.file("bodies.json"), mode: .once, environment: .tests)
            let session = Fetch.session(of: tape, style: style)
            let stream = InputStream(data: Data("sent once".utf8))
            stream.open()
            var buffer = [UInt8](repeating: 0, count: 64)
            _ = stream.read(&buffer, maxLength: buffer.count)
            stream.close()
            var request = URLRequest(url: URL(string: server.baseURL + "/echo")!)
            request.httpMethod = "PUT"
            request.httpBodyStream = stream

            let fetched = await Fetch.run(request, on: session, style: style)
            #expect(fetched.errorCode == .cannotDecodeRawData)
            #expect(
                fetched.errorDescription == "Cassette could not read the request body from the request's httpBodyStream: the stream was "
                    + "already read to its end or closed (a stream can be sent once; give each request its own). Nothing was sent or recorded; "
                    + "make the stream readable to its end.")
            #expect(server.received.isEmpty)
            #expect(try tape.eject().recorded == 0)
        }
    }

    @Test func aMissingUploadFileFailsAsLiveWithTheFileNamed() async throws {
        try await withScratchTape { scratch in
            let server = scratch.server
            let tape = try Tape(file: scratch.file("bodies.json"), mode: .once, environment: .tests)
            let missing = scratch.file("missing.bin")
            var request = URLRequest(url: URL(string: server.baseURL + "/echo")!)
            request.httpMethod = "POST"
            let error = await #expect(throws: URLError.self) { _ = try await tape.session.upload(for: request, fromFile: missing) }
            #expect(error?.code == .fileDoesNotExist)
            #expect(error?.localizedDescription.hasPrefix("Cassette could not read the file to upload, \(missing.path):") == true)
            #expect(server.received.isEmpty)
            #expect(try tape.eject().recorded == 0)
        }
    }
}
