import CassetteFormats
import Testing

@Suite struct ByteSearchTests {
    @Test func findsTheBytesAnywhereAndNothingElse() {
        #expect("application/json; charset=utf-8".containsBytes("json"))
        #expect("application/json".containsBytes("application/json"))
        #expect("json".containsBytes("json") && "xjson".containsBytes("json") && "jsonx".containsBytes("json"))
        #expect(!"application/jso".containsBytes("json"))
        #expect(!"APPLICATION/JSON".containsBytes("json"), "byte for byte: no case folding")
        #expect("".containsBytes("") && "abc".containsBytes(""))
        #expect(!"".containsBytes("a"))
        #expect("a+b grpc-web".containsBytes("grpc") && "multipart/form-data".dropFirst(5).containsBytes("part/form"))
        #expect("caf\u{E9} json".containsBytes("\u{E9} j"), "UTF-8 bytes, not characters")
    }
}
