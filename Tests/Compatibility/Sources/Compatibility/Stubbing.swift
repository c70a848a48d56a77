import Cassette
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// Code-defined stubs, as the Guide's "Stubs" chapter and its OHHTTPStubs and URLMock tables write them.

struct NewUser: Codable, Sendable {
    var name: String
}

func conditions() -> [StubCondition] {
    [
        .always, .method("POST") && .host("api.example.com"), .scheme("https"), .path("/users/*"), .pathPrefix("/v1"),
        .pathSuffix(".json"), .pathMatches(#"^/users/\d+$"#), .url("https://api.example.com/*"), .queryParameter("page"),
        .queryParameter("page", equals: "2"), .header("Authorization"), .header("Accept", equals: "application/json"),
        .jsonBody(equals: NewUser(name: "Ada")), .jsonBody(containing: ["name": "Ada"]), .formBody(equals: ["a": "1"]),
        .formBody(containing: ["a": "1"]), !.method("GET") || .custom("has a body") { $0.httpBody != nil },
    ]
}

func responses(file: URL) -> [StubResponse] {
    var built = StubResponse(status: 201, headers: ["Location": "/users/43"], body: Data())
    built.status = 202
    built.headers = ["X-Request-Id": "1"]
    built.body = Data("{}".utf8)
    _ = built.error
    return [
        built, .data(Data(), status: 204, headers: [:]), .json(NewUser(name: "Ada"), status: 200, headers: [:]),
        .json(object: ["id": 42], status: 200), .text("pong", status: 200), .form(["ok": "1"]), .file(file, status: 200),
        .httpMessage(Data("HTTP/1.1 200 OK\r\n\r\n".utf8)), .httpMessage(file: file), .error(.notConnectedToInternet),
        .chunks([Data("a".utf8), Data("b".utf8)], delay: 0.1, status: 200, headers: [:]),
        .json(["id": 42]).status(500).header("Retry-After", "1").responseTime(0.2).requestTime(0.1, responseTime: 0.3)
            .downloadSpeed(.threeG),
    ]
}

func stubSessions() async throws {
    try await withStubSession(unmatched: .fail) { stubbed in
        stubbed.stubs.add(.path("/feed"), response: .error(.notConnectedToInternet))
        let stub = stubbed.stubs.add(.method("POST"), name: "create") { request in
            let user = try? request.decodeJSONBody(as: NewUser.self)
            _ = (request.method, request.url, request.body, request.parameters, request.request, request.urlRequest)
            return .json(["name": user?.name ?? ""], status: 201)
        }
        _ = (stub.name, stub.condition, stub.description, stub.condition.description)
        stubbed.stubs.expect(.path("/ping"), name: "ping", headers: ["Accept": "*/*"], response: .text("pong"))
        stubbed.stubs.expect(.path("/echo"), name: nil, headers: nil) { _ in .text("echo") }
        stubbed.stubs.onActivation { request, stub in _ = (request, stub) }
        _ = stubbed.stubs.all
        _ = stubbed.stubs.remove(stub)
        _ = stubbed.stubs.removeLast()
        stubbed.setClock { Date(timeIntervalSince1970: 0) }
        _ = (stubbed.now, stubbed.session, StubSession.current)
        let configuration = URLSessionConfiguration.ephemeral
        stubbed.configure(configuration)
        _ = try await stubbed.session.data(from: URL(fileURLWithPath: "/"))
    }
    try withStubSession(unmatched: .passThrough) { stubbed in
        stubbed.stubs.removeAll()
    }
    let session = StubSession(unmatched: .fail)
    defer { session.invalidate() }
    do {
        try session.verify()
        try Stubs.global.verify()
    } catch {
        _ = (error.unmet, error.unexpected, error.description)
    }
    _ = Stubs()
}
